import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyWorkspace, packAll, pnpmCommand, publishablePackages, ROOT } from "../src/workspace.js";

const run = promisify(execFile);
const changeset = join(ROOT, "node_modules", ".bin", "changeset");
const copies: string[] = [];
const copyRepository = async () => {
  const copy = await copyWorkspace();
  copies.push(copy);
  return copy;
};

function versions(root: string): Record<string, string> {
  return Object.fromEntries(publishablePackages(root).map((p) => [p.manifest.name, p.manifest.version]));
}

function bump(version: string, kind: "patch" | "minor" | "major"): string {
  const [major, minor, patch] = version.split(".").map(Number) as [number, number, number];
  if (kind === "major") return `${major + 1}.0.0`;
  return kind === "minor" ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
}

afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

describe("changeset version on a throwaway copy", () => {
  let copy: string;
  let before: Record<string, string>;
  beforeAll(async () => {
    copy = await copyRepository();
    before = versions(copy);
    for (const file of readdirSync(join(copy, ".changeset"))) {
      if (file.endsWith(".md") && file !== "README.md") rmSync(join(copy, ".changeset", file));
    }
    writeFileSync(
      join(copy, ".changeset", "spec-major.md"),
      '---\n"@plant-store/spec": major\n---\n\nA breaking change to the contract.\n',
    );
    await run(changeset, ["version"], { cwd: copy, env: { ...process.env, CI: "true" } });
  });

  it("bumps the changed package and every package whose published range would no longer include it", () => {
    const after = versions(copy);
    expect(after["@plant-store/spec"]).toBe(bump(before["@plant-store/spec"] as string, "major"));
    for (const { manifest } of publishablePackages(ROOT)) {
      if (manifest.name === "@plant-store/spec") continue;
      // ^1.0.0 excludes 2.0.0, so every direct dependent of spec needs a release pointing at the new
      // contract (left behind, it would keep pinning the old one). Packages that reach spec only through
      // core keep their version: core's patch release is inside their ^ range.
      const direct = manifest.dependencies?.["@plant-store/spec"] !== undefined;
      const expected = direct ? bump(before[manifest.name] as string, "patch") : before[manifest.name];
      expect(after[manifest.name], manifest.name).toBe(expected);
    }
    expect(Object.values(after).filter((v, i) => v !== Object.values(before)[i]).length).toBeGreaterThan(1);
  });

  it("writes changelogs: the summary for spec, the dependency update for its dependents", () => {
    expect(readFileSync(join(copy, "spec", "CHANGELOG.md"), "utf8")).toContain(
      "A breaking change to the contract.",
    );
    const core = readFileSync(join(copy, "packages", "core", "CHANGELOG.md"), "utf8");
    expect(core).toMatch(/Updated dependencies/);
    expect(core).toContain(`@plant-store/spec@${bump(before["@plant-store/spec"] as string, "major")}`);
  });

  it("publishes dependents with a range that includes the new version (pnpm rewrites workspace:^)", async () => {
    const [cmd, prefix] = pnpmCommand(copy);
    // pnpm resolves workspace: ranges from the installed workspace; linking from the store takes a second or two.
    await run(cmd, [...prefix, "install", "--offline", "--ignore-scripts", "--frozen-lockfile"], {
      cwd: copy,
    });
    const tarballs = await packAll(join(copy, ".packs"), copy);
    const { stdout } = await run("tar", [
      "-xOzf",
      tarballs["@plant-store/core"] as string,
      "package/package.json",
    ]);
    const core = JSON.parse(stdout) as { dependencies: Record<string, string> };
    expect(core.dependencies["@plant-store/spec"]).toBe(
      `^${bump(before["@plant-store/spec"] as string, "major")}`,
    );
  });
});

describe("the repository's pending changesets", () => {
  it("apply cleanly and consume every changeset file", async () => {
    const copy = await copyRepository();
    const pending = readdirSync(join(copy, ".changeset")).filter(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    expect(pending.length).toBeGreaterThan(0);
    const before = versions(copy);
    // Every package a pending changeset names is released (the spec, first published as 1.0.0 from its
    // package.json, may have none).
    const named = new Set(
      pending.flatMap((f) =>
        [...readFileSync(join(copy, ".changeset", f), "utf8").matchAll(/^"(@plant-store\/[^"]+)": /gm)].map(
          (m) => m[1] as string,
        ),
      ),
    );
    expect(named.size).toBeGreaterThan(0);
    await run(changeset, ["version"], { cwd: copy, env: { ...process.env, CI: "true" } });
    expect(
      readdirSync(join(copy, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md"),
    ).toEqual([]);
    const after = versions(copy);
    for (const name of named) expect(after[name], name).not.toBe(before[name]);
  });
});
