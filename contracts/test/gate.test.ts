import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkContracts } from "../src/check.mjs";
import { recordRelease } from "../src/record-release.mjs";
import { formatReport } from "../src/report.mjs";
import { copyRepository, ROOT } from "./repository-copy.js";

const run = promisify(execFile);

/** Runs a command in the copy; resolves with its exit code and output whether it failed or not. */
async function sh(cwd: string, command: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: { ...process.env, CI: "true" } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

const changesetBin = join(ROOT, "node_modules", "@changesets", "cli", "bin.js");
/** The gate's command as `npm test` runs it (a process: exit code and output). */
const gateCommand = (root: string) => sh(root, "npm", ["run", "--silent", "contract:check"]);
/** The same check in this process, for the many variations (a process costs a second of start-up each). */
async function gate(root: string) {
  const result = await checkContracts(root);
  return { code: result.ok ? 0 : 1, output: formatReport(result, { verbose: true }) };
}
const addChangeset = (root: string, name: string, bump: string) =>
  writeFileSync(
    join(root, ".changeset", `${name}.md`),
    `---\n"@plant-store/spec": ${bump}\n---\n\nA change to the contract.\n`,
  );
const specVersion = (root: string) =>
  (JSON.parse(readFileSync(join(root, "spec", "package.json"), "utf8")) as { version: string }).version;

// Each test spawns `changeset version` or the gate's command (a node start and its module loading each): the timeout
// leaves room for a loaded CI run.
describe("the contract gate on a copy of the repository", { timeout: 120_000 }, () => {
  let copy: ReturnType<typeof copyRepository>;
  let spec: string;
  let released: string;

  beforeAll(() => {
    copy = copyRepository();
    spec = join(copy.root, "spec", "openapi.yaml");
    released = readFileSync(spec, "utf8");
  });

  afterAll(() => copy?.remove());

  it("passes on the repository as committed: the spec is 1.0.0, its document's version, and its baseline", async () => {
    expect(specVersion(copy.root)).toBe("1.0.0");
    expect(released).toContain("\n  version: 1.0.0\n");
    expect(readFileSync(join(copy.root, "contracts", "baseline", "spec", "openapi.yaml"), "utf8")).toBe(
      released,
    );
    const { code, output } = await gate(copy.root);
    expect(code, output).toBe(0);
    expect(output).toContain("@plant-store/spec (spec/openapi.yaml): ok, unchanged since the last release.");
    expect(output).toMatch(
      /Release plan \(what `changeset version` would release now[^\n]*\n {2}@plant-store\//,
    );
  });

  it("fails a breaking edit to spec/openapi.yaml, naming it, until a major changeset for the spec is pending", async () => {
    // `tag` becomes required: every sender that leaves it out now sends an invalid payload.
    writeFileSync(
      spec,
      released.replace(
        "      required:\n        - name\n",
        "      required:\n        - name\n        - tag\n",
      ),
    );

    const failed = await gateCommand(copy.root);
    expect(failed.code).toBe(1);
    expect(failed.output).toContain("spec/openapi.yaml has breaking changes since the last release");
    expect(failed.output).toContain(
      "webhook POST /plant/webhook: [Added] required status to `tag` in Request Body content (application/json)",
    );
    expect(failed.output).toContain("need a major changeset for @plant-store/spec 1.0.0;");
    expect(failed.output).toContain('run `pnpm changeset`, choose @plant-store/spec and "major"');

    addChangeset(copy.root, "spec-tag-minor", "minor");
    const stillFailing = await gate(copy.root);
    expect(stillFailing.code).toBe(1);
    expect(stillFailing.output).toMatch(/the pending changesets bump it by minor only \(.*spec-tag-minor/);

    addChangeset(copy.root, "spec-tag-required", "major");
    const passed = await gateCommand(copy.root);
    expect(passed.code, passed.output).toBe(0);
    expect(passed.output).toContain(
      "the most demanding breaking: needs major, the pending changesets give major",
    );
    expect(passed.output).toContain("@plant-store/spec 1.0.0 → 2.0.0 (major)");
  });

  it("the version step writes 2.0.0 into info.version, touching nothing else, and records the baseline", async () => {
    const edited = readFileSync(spec, "utf8");
    const version = await sh(copy.root, "node", [changesetBin, "version"]);
    expect(version.code, version.output).toBe(0);
    const record = await sh(copy.root, "node", ["contracts/src/bin.mjs", "version"]);
    expect(record.output).toContain("contract gate: spec/openapi.yaml: info.version 1.0.0 → 2.0.0");
    expect(
      readdirSync(join(copy.root, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md"),
    ).toEqual([]);
    expect(specVersion(copy.root)).toBe("2.0.0");
    expect(readFileSync(spec, "utf8")).toBe(edited.replace("\n  version: 1.0.0\n", "\n  version: 2.0.0\n"));
    expect(readFileSync(join(copy.root, "contracts", "baseline", "spec", "openapi.yaml"), "utf8")).toBe(
      readFileSync(spec, "utf8"),
    );
    const after = await gate(copy.root);
    expect(after.code, after.output).toBe(0);
    expect(after.output).toContain("Release plan: nothing to release");
  });

  it("fails an info.version that is neither the package's version nor the next one", async () => {
    const current = readFileSync(spec, "utf8");
    writeFileSync(spec, current.replace("\n  version: 2.0.0\n", "\n  version: 2.1.0\n"));
    const { code, output } = await gate(copy.root);
    expect(code).toBe(1);
    expect(output).toContain('spec/openapi.yaml says info.version "2.1.0", but @plant-store/spec is 2.0.0');
    addChangeset(copy.root, "spec-minor", "minor");
    const planned = await gate(copy.root);
    expect(planned.code, planned.output).toBe(0); // 2.1.0 is what the pending minor will release
    rmSync(join(copy.root, ".changeset", "spec-minor.md"));
    writeFileSync(spec, current);
  });

  it("an additive change needs at least a minor changeset, a description change a patch", async () => {
    const current = readFileSync(spec, "utf8");
    const added = current.replace(
      "        tag:\n          description: Tag to specify the type.\n          type: string\n",
      "        tag:\n          description: Tag to specify the type.\n          type: string\n" +
        "        color:\n          description: The colour of the leaves.\n          type: string\n",
    );
    expect(added).not.toBe(current);
    writeFileSync(spec, added);
    const additive = await gate(copy.root);
    expect(additive.code).toBe(1);
    expect(additive.output).toContain("has additive changes since the last release");
    expect(additive.output).toContain("[Added] property `color` in Request Body content (application/json)");
    addChangeset(copy.root, "spec-patch", "patch");
    expect((await gate(copy.root)).code).toBe(1);
    addChangeset(copy.root, "spec-minor", "minor");
    expect((await gate(copy.root)).code).toBe(0);

    rmSync(join(copy.root, ".changeset", "spec-minor.md"));
    writeFileSync(spec, current.replace("Name of the plant.", "The plant's common name."));
    expect((await gate(copy.root)).code).toBe(0); // the pending patch covers a description
    rmSync(join(copy.root, ".changeset", "spec-patch.md"));
    const documentation = await gate(copy.root);
    expect(documentation.code).toBe(1);
    expect(documentation.output).toContain("has documentation-only changes");
    writeFileSync(spec, current);
  });

  it("guards a JSON document of a 0.x package from one more line of config, with 0.x's bumps", async () => {
    const config = join(copy.root, "contracts", "contracts.json");
    const entries = JSON.parse(readFileSync(config, "utf8")) as { contracts: Record<string, string>[] };
    // The repository guards the sender's document already; here a fresh entry (with infoVersion) replaces it.
    entries.contracts = entries.contracts.filter((entry) => entry.package !== "@plant-store/sender");
    entries.contracts.push({
      package: "@plant-store/sender",
      document: "apps/sender/openapi.json",
      baseline: "contracts/baseline/apps/sender/openapi.json",
      infoVersion: "package",
    });
    writeFileSync(config, JSON.stringify(entries, null, 2));
    const document = join(copy.root, "apps", "sender", "openapi.json");
    const fixture = parse(readFileSync(new URL("fixtures/base.yaml", import.meta.url), "utf8"));
    const sender = (
      JSON.parse(readFileSync(join(copy.root, "apps", "sender", "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    expect(sender).toMatch(/^0\./);

    fixture.info.version = sender;
    writeFileSync(document, JSON.stringify(fixture));
    const never = await gate(copy.root);
    expect(never.code, never.output).toBe(0);
    expect(never.output).toContain(
      "@plant-store/sender (apps/sender/openapi.json): never released (no contracts/baseline/apps/sender/openapi.json)",
    );

    fixture.info.version = "0.0.1";
    writeFileSync(document, `${JSON.stringify(fixture, null, 2)}\n`);
    const wrongVersion = await gate(copy.root);
    expect(wrongVersion.output).toContain("@plant-store/sender (apps/sender/openapi.json): FAILED");
    expect(wrongVersion.output).toContain(
      `apps/sender/openapi.json says info.version "0.0.1", but @plant-store/sender is ${sender}`,
    );

    expect(await recordRelease(copy.root)).toContain(
      `apps/sender/openapi.json: info.version 0.0.1 → ${sender}`,
    );
    const recorded = readFileSync(document, "utf8");
    expect(recorded).toBe(
      `${JSON.stringify({ ...fixture, info: { ...fixture.info, version: sender } }, null, 2)}\n`,
    );
    expect((await gate(copy.root)).code).toBe(0);

    // In 0.x a breaking change needs a minor: ^0.2.0 does not accept 0.3.0.
    delete fixture.webhooks["/plant/webhook"];
    fixture.info.version = sender;
    writeFileSync(document, JSON.stringify(fixture, null, 2));
    const broken = await gate(copy.root);
    expect(broken.code).toBe(1);
    expect(broken.output).toContain("[Removed] webhook POST /plant/webhook");
    expect(broken.output).toContain(`need a minor changeset for @plant-store/sender ${sender}`);
    const senderChangeset = (bump: string) =>
      writeFileSync(
        join(copy.root, ".changeset", "sender.md"),
        `---\n"@plant-store/sender": ${bump}\n---\n\nThe admin API lost a webhook.\n`,
      );
    senderChangeset("patch");
    expect((await gate(copy.root)).code).toBe(1);
    senderChangeset("minor");
    const passed = await gate(copy.root);
    expect(passed.code, passed.output).toBe(0);
  });
});

// After a release (the pending changesets applied), a breaking contract change with only the spec's major changeset:
// changesets alone would release every dependent as a patch that depends on spec@^2.
describe("the gate on the dependents of a breaking release", { timeout: 120_000 }, () => {
  let copy: ReturnType<typeof copyRepository>;
  const dependents = [
    "@plant-store/admin-api",
    "@plant-store/app-kit",
    "@plant-store/cli",
    "@plant-store/conformance",
    "@plant-store/core",
    "@plant-store/receiver",
    "@plant-store/sender",
    "@plant-store/store",
  ];

  beforeAll(async () => {
    copy = copyRepository();
    const version = await sh(copy.root, "node", [changesetBin, "version"]);
    expect(version.code, version.output).toBe(0);
    // The rest of `pnpm version-packages`: each document's info.version and its baseline, as a release records them.
    const record = await sh(copy.root, "node", ["contracts/src/bin.mjs", "version"]);
    expect(record.code, record.output).toBe(0);
    specReleased = JSON.parse(readFileSync(join(copy.root, "spec", "package.json"), "utf8")).version;
  });
  let specReleased = "";

  afterAll(() => copy?.remove());

  it("fails a spec major whose dependents are not released as breaking, naming each with its chain, until they are", async () => {
    const spec = join(copy.root, "spec", "openapi.yaml");
    const released = readFileSync(spec, "utf8");
    writeFileSync(
      spec,
      released.replace(
        "      required:\n        - name\n",
        "      required:\n        - name\n        - tag\n",
      ),
    );
    addChangeset(copy.root, "spec-tag-required", "major");

    const failed = await gateCommand(copy.root);
    expect(failed.code).toBe(1);
    expect(failed.output).toContain("@plant-store/spec (spec/openapi.yaml): ok");
    expect(failed.output).toContain(
      "contract gate: releases of the packages that depend on a breaking release: FAILED",
    );
    expect(failed.output).toContain(
      `@plant-store/spec ${specReleased} → 2.0.0 is a breaking release (^${specReleased} does not take it).`,
    );
    expect(failed.output).toContain(
      "- @plant-store/core 0.2.0 needs minor (@plant-store/core → @plant-store/spec); no pending changeset names it",
    );
    expect(failed.output).toContain(
      "- @plant-store/app-kit 0.2.0 needs minor (@plant-store/app-kit → @plant-store/spec)",
    );
    // What changesets alone would do: patches that carry the new contract to ^0.2.0 users.
    expect(failed.output).toContain("@plant-store/core 0.2.0 → 0.2.1 (patch)");
    const result = await checkContracts(copy.root);
    expect(result.dependents.map((d) => d.name).sort()).toEqual(dependents);
    expect(result.dependents.every((d) => d.needed === "minor")).toBe(true);

    writeFileSync(
      join(copy.root, ".changeset", "dependents-follow-the-contract.md"),
      `---\n${dependents.map((name) => `"${name}": minor`).join("\n")}\n---\n\nThe New Plant contract 2.0.0: \`tag\` is required.\n`,
    );
    const passed = await gateCommand(copy.root);
    expect(passed.code, passed.output).toBe(0);
    expect(passed.output).not.toContain("FAILED");
    expect(passed.output).toContain(`@plant-store/spec ${specReleased} → 2.0.0 (major)`);
    for (const name of dependents) expect(passed.output).toContain(`${name} 0.2.0 → 0.3.0 (minor)`);
    expect(passed.output).not.toContain("@plant-store/console"); // depends on nothing of ours: not released
  });
});
