import { execFile } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { Rehearsal, RehearsalError, rehearse } from "../src/rehearse.js";
import { copyWorkspace, publishablePackages, ROOT } from "../src/workspace.js";

const run = promisify(execFile);
const names = publishablePackages().map((p) => p.manifest.name);
const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** Resolves once nothing listens at `url` any more (the registry was stopped, not just abandoned). */
async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

// Minutes of publishing and installing (a fresh consumer compiles better-sqlite3): opt-in with
// PLANT_STORE_REHEARSAL=1, as the release workflow runs the full rehearsal before every publish anyway.
const REHEARSE = process.env.PLANT_STORE_REHEARSAL === "1";
if (!REHEARSE) {
  console.log(
    "release rehearsal: skipped (set PLANT_STORE_REHEARSAL=1, or run pnpm release:rehearse --quick)",
  );
}

// The quick rehearsal of `pnpm release:rehearse --quick`: one release (the pending changesets) published to a
// throwaway Verdaccio, then a consumer installs every package by range from it and runs it. Its steps print
// their own timings; publishing and installing take minutes on a loaded machine, hence the timeout.
it.skipIf(!REHEARSE)(
  "publishes every package to a throwaway registry; a consumer installs them by range, type-checks, runs the bins; nothing is left behind",
  async () => {
    const lines: string[] = [];
    const result = await rehearse({ quick: true, log: (line) => lines.push(line) });
    const output = lines.join("\n");
    expect(Object.keys(result.published).sort()).toEqual([...names].sort());
    for (const name of names) {
      const versions = result.published[name] as string[];
      expect(versions, name).toHaveLength(1);
      expect(result.distTags[name], name).toEqual({ latest: versions[0] });
    }
    expect(output).toContain("provenance switched OFF in the copy's publishConfig");
    for (const step of [
      "tsc --noEmit of a strict consumer",
      "npx plant-store --version prints the published version",
      "plant-store-receiver starts and answers /healthz",
      "plant-store-sender starts and answers /healthz",
      "one signed New Plant goes CLI → receiver and is stored",
    ]) {
      expect(output).toContain(step);
    }
    expect(result.temporary.length).toBeGreaterThan(1);
    for (const dir of result.temporary) expect(existsSync(dir), dir).toBe(false);
    expect(await refused(result.registry)).toBe(true);
  },
  1_200_000,
); // cold (Verdaccio's first install, better-sqlite3 compiling in the consumer) on a loaded machine: ~10 min

it.skipIf(!REHEARSE)(
  "a package that imports what it does not declare fails the rehearsal with the step, the package and what to do; the registry is stopped",
  async () => {
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
  },
);
