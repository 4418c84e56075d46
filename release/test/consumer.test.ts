import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createToken } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../test-support/processes.js";
import { CACHE } from "../src/cache.js";
import { type NodeRuntime, nodeRuntimes } from "../src/node-versions.js";
import { publishablePackages } from "../src/workspace.js";

const run = promisify(execFile);
const fixtures = fileURLToPath(new URL("../consumer", import.meta.url));
const npmCli = join(dirname(dirname(process.execPath)), "lib", "node_modules", "npm", "bin", "npm-cli.js");
const packages = publishablePackages();
const names = packages.map((p) => p.manifest.name);
const runtimes = await nodeRuntimes();
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe.each(runtimes.map((r) => [r.label, r] as const))("the packed tarballs on %s", (_label, runtime) => {
  const project = join(CACHE, "consumer", runtime.label.replace(/\s+/g, "-"));
  const env = (r: NodeRuntime) => ({
    ...process.env,
    PATH: `${dirname(r.node)}:${process.env.PATH}`,
    npm_config_nodedir: r.nodedir,
    npm_config_update_notifier: "false",
    NO_COLOR: "1",
  });
  const node = (args: string[], options: { timeout?: number } = {}) =>
    run(runtime.node, args, { cwd: project, env: env(runtime), timeout: options.timeout ?? 60_000 });

  beforeAll(async () => {
    // A project outside the repository that depends on the tarballs only; their own dependencies come from the
    // registry. node_modules is kept between runs so better-sqlite3 compiles once per Node version.
    const tarballs = inject("tarballs");
    mkdirSync(project, { recursive: true });
    const files = Object.fromEntries(names.map((name) => [name, `file:${tarballs[name]}`]));
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify(
        {
          name: "plant-store-consumer",
          private: true,
          type: "module",
          dependencies: files,
          devDependencies: { typescript: "5.9.3", "@types/node": "20.19.43" },
          overrides: files, // our packages depend on each other: resolve those to the tarballs too
        },
        null,
        2,
      )}\n`,
    );
    rmSync(join(project, "node_modules", "@plant-store"), { recursive: true, force: true });
    // An install stopped while it compiled (a killed run) leaves better-sqlite3 without its binding, and npm would
    // keep that copy: drop it so this install compiles it again.
    const sqlite = join(project, "node_modules", "better-sqlite3");
    if (!existsSync(join(sqlite, "build", "Release", "better_sqlite3.node"))) {
      rmSync(sqlite, { recursive: true, force: true });
    }
    await run(runtime.node, [npmCli, "install", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: project,
      env: env(runtime),
      // Installing compiles better-sqlite3 for this runtime, which is slow on a busy machine: the bound is for a hung
      // install, not a slow one.
      timeout: 1_500_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const file of ["smoke.mjs", "consumer.ts", "tsconfig.json"]) {
      copyFileSync(join(fixtures, file), join(project, file));
    }
  });

  it("installed exactly the tarballs of this run", () => {
    for (const { manifest } of packages) {
      const installed = JSON.parse(
        readFileSync(join(project, "node_modules", manifest.name, "package.json"), "utf8"),
      ) as { version: string };
      expect(installed.version, manifest.name).toBe(manifest.version);
    }
  });

  it("imports every public entry of every package, and the libraries work", async () => {
    const { stdout } = await node(["smoke.mjs", JSON.stringify(names)]);
    const result = JSON.parse(stdout.trim().split("\n").pop() as string) as {
      node: string;
      imported: string[];
    };
    expect(result.node).toBe(`v${runtime.label.split(" ")[1]}`);
    for (const name of names) {
      // A package with only a bin (the CLI) exports just ./package.json; every package has at least one entry.
      expect(
        result.imported.some((entry) => entry === name || entry.startsWith(`${name}/`)),
        name,
      ).toBe(true);
    }
  });

  it("type-checks a strict NodeNext consumer against the published .d.ts files", async () => {
    const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
    const result = await node([tsc, "-p", "tsconfig.json"]).catch((error: { stdout: string }) => error);
    expect("stdout" in result ? result.stdout : "").toBe("");
  });

  it("runs every bin with --help, as an executable (shebang and run bit set by the install)", async () => {
    const bins = packages.flatMap((p) => Object.keys(p.manifest.bin ?? {}));
    expect(bins.length).toBeGreaterThan(0);
    for (const bin of bins) {
      // Executed directly, not through `node`: PATH starts with this runtime's directory, so the shebang's
      // `env node` is the Node under test.
      const { stdout } = await run(join(project, "node_modules", ".bin", bin), ["--help"], {
        cwd: project,
        env: env(runtime),
        timeout: 60_000,
      });
      expect(stdout, bin).toMatch(/usage/i);
    }
  });

  it("round trip: the packed receiver stores what the packed CLI sends", async () => {
    const port = await freePort();
    const token = createToken();
    const admin = createToken();
    const bin = (name: string) => join(project, "node_modules", ".bin", name);
    const db = join(project, `round-trip-${Date.now()}.db`);
    const receiver = spawn(
      runtime.node,
      [
        bin("plant-store-receiver"),
        "--port",
        String(port),
        "--token",
        token,
        "--admin-token",
        admin,
        "--db",
        db,
      ],
      { cwd: project, env: env(runtime), stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(receiver);
    let log = "";
    receiver.stdout?.on("data", (chunk) => (log += chunk));
    receiver.stderr?.on("data", (chunk) => (log += chunk));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ready = await fetch(`${base}/readyz`).catch(() => null);
      if (ready?.ok) break;
      if (i > 100 || receiver.exitCode !== null) throw new Error(`the receiver did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const sent = await node([
      bin("plant-store"),
      "send",
      `${base}/plant/webhook`,
      "--token",
      token,
      "--json",
    ]);
    const outcome = JSON.parse(sent.stdout) as { status: number };
    expect(outcome.status).toBe(200);
    const events = (await (
      await fetch(`${base}/events`, { headers: { authorization: `Bearer ${admin}` } })
    ).json()) as { data: unknown[] };
    expect(events.data).toHaveLength(1);
    receiver.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => receiver.once("exit", (c) => resolve(c)));
    expect(code, log).toBe(0);
    if (existsSync(db)) rmSync(db);
  });
});
