import { execFile, spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { registryCommand } from "../src/registry.js";
import { Rehearsal, RehearsalError } from "../src/rehearse.js";
import { copyWorkspace, publishablePackages, ROOT } from "../src/workspace.js";

const run = promisify(execFile);
const copies: string[] = [];
// A rehearsal that timed out is still running: cleanup() stops its registry and apps and removes its directories.
const rehearsals: Rehearsal[] = [];
afterAll(async () => {
  for (const rehearsal of rehearsals) await rehearsal.cleanup();
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** Whether nothing listens at `url` any more (the registry was stopped, not just abandoned). */
async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

/** Resolves once `check` holds, polling every 100 ms; rejects with `what` after `ms`. */
async function until(check: () => Promise<boolean> | boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The quick rehearsal itself, as a user runs it, is tested in rehearse-cli.test.ts (`--quick --keep`: every
// package published and installed by range, then what was published consumed again by a held-out project).

it("a package that imports what it does not declare fails the rehearsal with the step, the package and what to do; the registry is stopped", async () => {
  // A repository whose built receiver imports a package that is only hoisted in the workspace, never declared.
  const broken = await copyWorkspace();
  copies.push(broken);
  for (const { dir } of publishablePackages()) {
    cpSync(join(dir, "dist"), join(broken, relative(ROOT, dir), "dist"), { recursive: true });
  }
  const bin = join(broken, "apps", "receiver", "dist", "bin.js");
  expect(readFileSync(bin, "utf8")).not.toContain("pino-pretty");
  appendFileSync(bin, '\nimport "pino-pretty";\n');
  await run("git", ["init", "-q"], { cwd: broken });

  const rehearsal = new Rehearsal({ quick: true, root: broken, log: () => {} });
  rehearsals.push(rehearsal);
  const error = await rehearsal.run().then(
    () => undefined,
    (e: unknown) => e,
  );
  await rehearsal.cleanup();
  expect(error).toBeInstanceOf(RehearsalError);
  const failure = error as RehearsalError;
  expect(failure.step).toBe("release 1: every import of the built packages is a declared dependency");
  expect(failure.pkg).toBe("@plant-store/receiver");
  expect(failure.message).toContain(
    "@plant-store/receiver imports `pino-pretty` (dist/bin.js) but does not depend on it",
  );
  expect(failure.message).toMatch(
    /what to do: add each dependency named below to that package's dependencies/,
  );
  expect(rehearsal.temporary.length).toBeGreaterThan(0);
  for (const dir of rehearsal.temporary) expect(existsSync(dir), dir).toBe(false);
  expect(await refused(rehearsal.registryUrl as string)).toBe(true);
}, 180_000);

it("Verdaccio ends and removes the rehearsal's directory when the process that started it is killed", async () => {
  // A parent that starts the registry as startRegistry() does (its own process group, stdin a pipe from the parent),
  // passes its port on, and is then killed with SIGKILL: no cleanup of its own runs.
  const root = mkdtempSync(join(tmpdir(), "plant-store-rehearsal-orphan-"));
  copies.push(root);
  const { args } = await registryCommand(join(root, "registry"), root);
  const parent = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { spawn } from "node:child_process";
       const child = spawn(process.execPath, ${JSON.stringify(args)}, { detached: true, stdio: ["pipe", "pipe", "inherit"] });
       child.stdout.pipe(process.stdout);`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  parent.stdout.on("data", (chunk) => (out += chunk));
  parent.stderr.on("data", (chunk) => (err += chunk));
  await until(() => out.includes('{"port":') || parent.exitCode !== null, "the registry's start");
  const { port } = JSON.parse(out.split("\n").find((line) => line.startsWith('{"port":')) as string) as {
    port: number;
  };
  const url = `http://127.0.0.1:${port}/`;
  expect(await refused(url), err).toBe(false);
  expect(existsSync(join(root, "registry", "config.yaml"))).toBe(true);

  parent.kill("SIGKILL");
  await until(() => refused(url), "Verdaccio ending after its parent was killed");
  await until(() => !existsSync(root), "the orphaned registry removing the rehearsal's directory");
}, 120_000);
