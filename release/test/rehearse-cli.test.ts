import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../test-support/processes.js";
import { pingRegistry, type Registry, startRegistry } from "../src/registry.js";
import { publishablePackages, ROOT } from "../src/workspace.js";

// `pnpm release:rehearse` as a user runs it: the built CLI in a process of its own, with a temporary directory
// (TMPDIR) of the test's, so that what it leaves behind can be listed.
const run = promisify(execFile);
const CLI = join(ROOT, "release", "dist", "rehearse-cli.js");
const dirs: string[] = [];
const registries: Registry[] = [];
const processes: ChildProcess[] = [];
/** Verdaccio processes the CLI reported: killed at the end whatever happened (their group, as stop() does). */
const verdaccios: number[] = [];

beforeAll(async () => {
  // What `pnpm release:rehearse` runs before the CLI.
  await run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "release/tsconfig.build.json"], { cwd: ROOT });
}, 120_000);

afterAll(async () => {
  for (const child of processes)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const pid of verdaccios) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
  for (const registry of registries) await registry.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `plant-store-cli-test-${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** Resolves once `check` holds, polling every 100 ms; rejects with `what` after `ms`. */
async function until(check: () => Promise<boolean> | boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether a process is gone: no such pid, or a zombie nobody reaped yet (it runs no more code). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** What a rehearsal left in its TMPDIR (its directories are named plant-store-rehearsal-…). */
function leftovers(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith("plant-store-rehearsal-"));
}

interface Cli {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Cli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  processes.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The `latest` version of one of our packages on `url`, read from its document. */
async function latest(url: string, name: string): Promise<string> {
  const response = await fetch(`${url}${name.replace("/", "%2f")}`);
  expect(response.status, `${name} on ${url}`).toBe(200);
  return ((await response.json()) as { "dist-tags": { latest: string } })["dist-tags"].latest;
}

/**
 * The held-out consumer: a project outside the workspace that maps only our scope to `url` and installs `name`
 * by `^` range with plain npm (install scripts off: nothing here needs a native build).
 */
async function consume(url: string, name: string): Promise<{ dir: string; version: string }> {
  const version = await latest(url, name);
  const dir = join(scratch("consumer"), "app");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "held-out", private: true, type: "module" })}\n`,
  );
  writeFileSync(join(dir, ".npmrc"), `@plant-store:registry=${url}\n`);
  await run(
    "npm",
    ["install", `${name}@^${version}`, "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"],
    { cwd: dir, timeout: 300_000 },
  );
  const installed = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as {
    version: string;
  };
  expect(installed.version).toBe(version);
  return { dir, version };
}

it("refuses a --registry that is not a throwaway registry's URL (exit 2), and one that does not answer (exit 1), naming it and what to do", async () => {
  for (const [value, message] of [
    ["not a url", '"not a url" is not a URL'],
    ["ftp://127.0.0.1:4873/", "is not an http(s) URL"],
    ["https://registry.npmjs.org", "https://registry.npmjs.org/ is a real registry"],
    ["http://user:secret@127.0.0.1:4873/", "the registry URL holds credentials"],
  ] as const) {
    const { output, exited } = cli(["--quick", "--registry", value]);
    expect(await exited, value).toBe(2);
    expect(output(), value).toContain(message);
    expect(output(), value).not.toContain("secret");
    expect(output(), value).toContain("usage: pnpm release:rehearse");
  }
  const both = cli(["--keep", "--registry", "http://127.0.0.1:4873/"]);
  expect(await both.exited).toBe(2);
  expect(both.output()).toContain("--keep keeps the rehearsal's own registry");

  const tmp = scratch("tmp");
  const url = `http://127.0.0.1:${await freePort()}/`;
  const silent = cli(["--quick", "--registry", url], { TMPDIR: tmp });
  expect(await silent.exited).toBe(1);
  expect(silent.output()).toContain(`${url} does not answer`);
  expect(silent.output()).toContain("what to do: start the registry");
  expect(leftovers(tmp)).toEqual([]);
}, 60_000);

// The held-out check of issue 28: a registry of the caller's (started here as a user would start Verdaccio, with
// npm logged in to it through npm's user config), the quick rehearsal publishing into it, then a consumer of the
// test's own installing from it by range after the rehearsal ended.
it("--registry publishes into the caller's registry, never stops it, and a consumer installs from it by range afterwards", async () => {
  const registry = await startRegistry();
  registries.push(registry);
  const tmp = scratch("tmp");
  // npm's user config as it is, plus the login `npm adduser --registry <url>` would add.
  const own = join(homedir(), ".npmrc");
  const userconfig = join(scratch("npm"), ".npmrc");
  writeFileSync(
    userconfig,
    `${existsSync(own) ? readFileSync(own, "utf8") : ""}\n${registry.url.replace(/^http:/, "")}:_authToken=${registry.token}\n`,
  );
  const rehearsal = cli(["--quick", "--registry", registry.url], {
    TMPDIR: tmp,
    npm_config_userconfig: userconfig,
  });
  expect(await rehearsal.exited, rehearsal.output()).toBe(0);
  expect(rehearsal.output()).toContain(`${registry.url} answers; npm publishes to it as rehearsal`);
  expect(rehearsal.output()).toContain("release rehearsal (quick) passed");
  expect(rehearsal.output()).not.toContain(registry.token);
  expect(leftovers(tmp)).toEqual([]);
  expect(await pingRegistry(registry.url)).toBeUndefined();

  const { dir, version } = await consume(registry.url, "@plant-store/core");
  const { stdout } = await run(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import * as core from "@plant-store/core";
       const secret = core.createSecret();
       const timestamp = Math.floor(Date.now() / 1000);
       const signature = await core.sign({ secret, id: "msg_held_out", timestamp, body: "{}" });
       const verdict = await core.verify({ secrets: [secret], id: "msg_held_out", timestamp: String(timestamp), signature, body: "{}" });
       console.log(JSON.stringify({ ok: verdict.ok }));`,
    ],
    { cwd: dir },
  );
  expect(JSON.parse(stdout)).toEqual({ ok: true });
  expect(version).toMatch(/^\d+\.\d+\.\d+$/);
}, 420_000);

it("--keep keeps the rehearsal's own registry serving what it published, and SIGTERM stops it and removes everything", async () => {
  const tmp = scratch("tmp");
  const rehearsal = cli(["--quick", "--keep"], { TMPDIR: tmp });
  const line = /keeping the registry at (http:\/\/127\.0\.0\.1:\d+\/) \(storage (\S+), Verdaccio pid (\d+)\)/;
  await until(
    () => line.test(rehearsal.output()) || rehearsal.child.exitCode !== null,
    "the keep line",
    360_000,
  );
  const [, url, storage, pid] = line.exec(rehearsal.output()) as unknown as [string, string, string, string];
  verdaccios.push(Number(pid));
  const output = rehearsal.output();
  expect(output).toContain("release rehearsal (quick) passed");
  // The quick rehearsal's steps, each of which fails the run when it fails.
  expect(output).toContain("provenance switched OFF in the copy's publishConfig");
  for (const step of [
    "pnpm pack of every public package on the copy",
    "npm publish of every tarball, in parallel, under `latest` to the throwaway registry",
    "consumer: npm install every public package by range",
    "tsc --noEmit of a strict consumer",
    "import every public entry of every package; sign → verify; SQLite store",
    "npx plant-store --version prints the published version",
    "plant-store-receiver starts and answers /healthz",
    "plant-store-sender starts and answers /healthz",
    "one signed New Plant goes CLI → receiver and is stored",
  ]) {
    expect(output).toContain(step);
  }
  // Every public package is published once, under `latest`.
  for (const { manifest } of publishablePackages()) {
    const document = (await (await fetch(`${url}${manifest.name.replace("/", "%2f")}`)).json()) as {
      versions: Record<string, unknown>;
      "dist-tags": Record<string, string>;
    };
    expect(Object.keys(document.versions), manifest.name).toHaveLength(1);
    expect(document["dist-tags"], manifest.name).toEqual({ latest: Object.keys(document.versions)[0] });
  }

  // While kept: the registry answers and holds what was published; of the rehearsal's directories only the
  // registry's is left.
  expect(await pingRegistry(url)).toBeUndefined();
  expect(existsSync(storage)).toBe(true);
  const [base] = leftovers(tmp);
  expect(leftovers(tmp)).toHaveLength(1);
  expect(readdirSync(join(tmp, base as string))).toEqual(["registry"]);
  const { dir, version } = await consume(url, "@plant-store/cli");
  const { stdout } = await run(join(dir, "node_modules", ".bin", "plant-store"), ["--version"], { cwd: dir });
  expect(stdout.trim()).toBe(version);

  rehearsal.child.kill("SIGTERM");
  expect(await rehearsal.exited, rehearsal.output()).toBe(0);
  expect(gone(Number(pid))).toBe(true);
  expect(await pingRegistry(url, 2_000)).toMatch(/ECONNREFUSED/);
  expect(leftovers(tmp)).toEqual([]);
}, 480_000);

/** Processes whose command line or working directory lies in `dir` (a killed rehearsal's stragglers). */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (!gone(Number(pid)) && (cmdline.includes(dir) || cwd.startsWith(dir)))
        found.push(`${pid} ${cmdline}`);
    } catch {} // gone meanwhile, or not ours to read
  }
  return found;
}

it("a rehearsal killed with SIGKILL mid-run leaves no Verdaccio, no other process of its own and no temporary directory", async () => {
  const tmp = scratch("tmp");
  const rehearsal = cli(["--quick"], { TMPDIR: tmp });
  // The evidence that it is mid-run: the registry is up and the publish begins right after this line.
  const line = /(http:\/\/127\.0\.0\.1:\d+\/) \(Verdaccio pid (\d+)\) holds/;
  await until(
    () => line.test(rehearsal.output()) || rehearsal.child.exitCode !== null,
    "the registry line",
    300_000,
  );
  const [, url, pid] = line.exec(rehearsal.output()) as unknown as [string, string, string];
  verdaccios.push(Number(pid));
  const [base] = leftovers(tmp);
  expect(base, rehearsal.output()).toBeDefined();
  expect(gone(Number(pid))).toBe(false);
  // The scan below sees the rehearsal's processes (Verdaccio's command line names its config in there).
  expect(processesIn(join(tmp, base as string)).some((p) => p.startsWith(`${pid} `))).toBe(true);

  rehearsal.child.kill("SIGKILL");
  await rehearsal.exited;
  await until(
    () => gone(Number(pid)),
    `Verdaccio (pid ${pid}) ending after the rehearsal was killed`,
    60_000,
  );
  await until(() => leftovers(tmp).length === 0, "the rehearsal's temporary directory being removed", 60_000);
  await until(
    () => processesIn(join(tmp, base as string)).length === 0,
    `the rehearsal's other processes ending (${processesIn(join(tmp, base as string)).join("; ")})`,
    60_000,
  );
  expect(await pingRegistry(url, 2_000)).toMatch(/ECONNREFUSED/);
}, 360_000);
