import { describe, expect, it } from "vitest";
import type { Bump } from "../src/changesets.mjs";
import { breakingDependents, caretKey, isBreakingRelease } from "../src/dependents.mjs";

describe("isBreakingRelease (npm's caret rule)", () => {
  it("from 1.0.0 on a new major breaks, in 0.x a new minor, in 0.0.x a new patch", () => {
    expect(isBreakingRelease("1.0.0", "2.0.0")).toBe(true);
    expect(isBreakingRelease("1.0.0", "1.1.0")).toBe(false);
    expect(isBreakingRelease("0.2.0", "0.3.0")).toBe(true);
    expect(isBreakingRelease("0.2.0", "0.2.1")).toBe(false);
    expect(isBreakingRelease("0.0.3", "0.0.4")).toBe(true);
    expect(isBreakingRelease("0.9.1", "1.0.0")).toBe(true);
  });

  it("counts a prerelease as the version it leads to", () => {
    expect(caretKey("2.0.0-next.0")).toBe("2");
    expect(isBreakingRelease("1.0.0", "2.0.0-next.0")).toBe(true);
    expect(isBreakingRelease("2.0.0-next.0", "2.0.0-next.1")).toBe(false);
    expect(isBreakingRelease("1.0.0", "1.0.1-next.0")).toBe(false);
  });
});

// The workspace's shape: the spec at 1.x, everything else 0.x; console depends on nothing of ours.
const packages = [
  { name: "spec", version: "1.0.0", dependsOn: [] },
  { name: "core", version: "0.2.0", dependsOn: ["spec"] },
  { name: "store", version: "0.2.0", dependsOn: ["core", "spec"] },
  { name: "app-kit", version: "0.2.0", dependsOn: ["store"] },
  { name: "console", version: "0.2.0", dependsOn: [] },
  { name: "receiver", version: "0.2.0", dependsOn: ["app-kit", "console", "core", "spec", "store"] },
  { name: "stable", version: "1.3.0", dependsOn: ["core"] },
  { name: "tests", version: "0.0.0", private: true, dependsOn: ["spec", "receiver"] },
];
const bumps = (entries: Record<string, Bump>) =>
  new Map(Object.entries(entries).map(([name, bump]) => [name, { bump, changesets: [`${name}-change`] }]));
const release = (name: string, oldVersion: string, newVersion: string) => ({ name, oldVersion, newVersion });

describe("breakingDependents", () => {
  it("a major of the spec with only its own changeset: every published package that depends on it, at any depth, must be breaking too", () => {
    const plan = [release("spec", "1.0.0", "2.0.0"), release("core", "0.2.0", "0.2.1")];
    const problems = breakingDependents(packages, plan, bumps({ spec: "major" }));
    expect(problems.map((p) => [p.name, p.needed, p.through.join(" → ")])).toEqual([
      ["core", "minor", "core → spec"],
      ["store", "minor", "store → spec"],
      ["app-kit", "minor", "app-kit → store → spec"],
      ["receiver", "minor", "receiver → spec"],
      ["stable", "major", "stable → core → spec"],
    ]);
    expect(problems[0]?.release).toEqual(release("spec", "1.0.0", "2.0.0"));
    expect(problems[0]?.pending).toBeUndefined();
  });

  it("passes once each dependent's pending changesets give it a breaking bump (minor in 0.x, major from 1.0.0 on)", () => {
    const plan = [release("spec", "1.0.0", "2.0.0")];
    const enough = bumps({
      spec: "major",
      core: "minor",
      store: "minor",
      "app-kit": "major",
      receiver: "minor",
    });
    const stableMinor = breakingDependents(
      packages,
      plan,
      new Map([...enough, ...bumps({ stable: "minor" })]),
    );
    expect(stableMinor.map((p) => [p.name, p.needed, p.pending?.bump])).toEqual([
      ["stable", "major", "minor"],
    ]);
    expect(breakingDependents(packages, plan, new Map([...enough, ...bumps({ stable: "major" })]))).toEqual(
      [],
    );
  });

  it("a dependent that takes a breaking release of its own passes on the chain: its dependents must follow it", () => {
    // store breaks by itself (0.2.0 → 0.3.0): core is unaffected, what depends on store is not.
    const plan = [release("store", "0.2.0", "0.3.0")];
    const problems = breakingDependents(packages, plan, bumps({ store: "minor" }));
    expect(problems.map((p) => [p.name, p.through.join(" → ")])).toEqual([
      ["app-kit", "app-kit → store"],
      ["receiver", "receiver → store"],
    ]);
  });

  it("a compatible release, or a patch in 0.x, asks nothing of the dependents", () => {
    const plan = [release("spec", "1.0.0", "1.1.0"), release("core", "0.2.0", "0.2.1")];
    expect(breakingDependents(packages, plan, bumps({ spec: "minor", core: "patch" }))).toEqual([]);
  });
});
