import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../src/workspace.js";

interface Workflow {
  permissions?: Record<string, string>;
  jobs: Record<string, { steps: { uses?: string; run?: string; with?: Record<string, string> }[] }>;
}
const workflow = (name: string) =>
  parse(readFileSync(join(ROOT, ".github", "workflows", name), "utf8")) as Workflow;
const readme = readFileSync(join(ROOT, "README.md"), "utf8");

it("CI runs the README's test command, and .ci/run calls exactly that command", () => {
  const testCommand = /```sh\n(?:.*\n)*?(npm test)\b/.exec(readme)?.[1];
  expect(testCommand).toBe("npm test");
  const runs = Object.values(workflow("ci.yml").jobs).flatMap((job) => job.steps.map((s) => s.run));
  expect(runs).toContain(testCommand);
  const ciScript = readFileSync(join(ROOT, ".ci", "run"), "utf8");
  expect(ciScript.trim().split("\n").pop()).toBe(testCommand);
});

it("the release workflow publishes through changesets with provenance", () => {
  const release = workflow("release.yml");
  expect(release.permissions?.["id-token"]).toBe("write");
  const action = Object.values(release.jobs)
    .flatMap((job) => job.steps)
    .find((step) => step.uses?.startsWith("changesets/action@"));
  expect(action?.with?.publish).toBe("pnpm release");
  expect(action?.with?.version).toBe("pnpm version-packages");
});

it("the release workflow rehearses the whole release against a throwaway registry before publishing", () => {
  const steps = Object.values(workflow("release.yml").jobs).flatMap((job) => job.steps);
  const rehearsal = steps.findIndex((step) => step.run === "pnpm release:rehearse");
  const publish = steps.findIndex((step) => step.uses?.startsWith("changesets/action@"));
  expect(rehearsal).toBeGreaterThan(-1);
  expect(rehearsal).toBeLessThan(publish);
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(manifest.scripts["release:rehearse"]).toMatch(/rehearse-cli\.js$/);
  expect(readme).toMatch(/## Releasing\n(?:.*\n)*?.*pnpm release:rehearse/);
});
