// @ts-check
import { getPackages } from "@manypkg/get-packages";
import { covers, pendingBumps, releasePlan } from "./changesets.mjs";
import { classifyChanges, highestLevel } from "./classify.mjs";
import { loadContracts } from "./config.mjs";
import { breakingDependents } from "./dependents.mjs";
import { readDocument } from "./documents.mjs";
import { requiredBump } from "./required-bump.mjs";

/**
 * What the gate found for one contract. `problems` is empty when the contract passes.
 * @typedef {object} ContractResult
 * @property {import("./config.mjs").Contract} contract
 * @property {string} version the owning package's version now
 * @property {string | undefined} plannedVersion its version once the pending changesets are released
 * @property {boolean} hasBaseline false for a contract that was never released
 * @property {import("./classify.mjs").ContractChange[]} changes since the baseline
 * @property {import("./classify.mjs").ChangeLevel | undefined} level the most demanding change's level
 * @property {import("./changesets.mjs").Bump | undefined} needed the bump the changes need
 * @property {{ bump: import("./changesets.mjs").Bump, changesets: string[] } | undefined} pending
 * @property {{ kind: "bump" | "info-version" | "setup", message: string }[]} problems
 */

/**
 * @typedef {object} GateResult
 * @property {boolean} ok
 * @property {ContractResult[]} results
 * @property {import("./dependents.mjs").DependentProblem[]} dependents packages that depend on a breaking release
 *   and whose pending changesets do not make their own release breaking
 * @property {Awaited<ReturnType<typeof releasePlan>>} plan what `changeset version` would release now
 */

/**
 * Runs the contract gate: each document against its baseline, the changes classified, the bump they need
 * compared with the pending changesets, and `info.version` with the package's version; then the release plan:
 * every package that depends on a breaking release must be released as breaking too ({@link breakingDependents}).
 *
 * @param {string} root repository root
 * @returns {Promise<GateResult>}
 * @example
 * const { ok, results } = await checkContracts(process.cwd());
 */
export async function checkContracts(root) {
  const contracts = loadContracts(root);
  const { packages } = await getPackages(root);
  const bumps = await pendingBumps(root);
  const plan = await releasePlan(root);
  /** @type {ContractResult[]} */
  const results = [];
  for (const contract of contracts) {
    const pkg = packages.find((p) => p.packageJson.name === contract.package);
    const version = pkg?.packageJson.version ?? "0.0.0";
    /** @type {ContractResult} */
    const result = {
      contract,
      version,
      plannedVersion: plan.find((r) => r.name === contract.package)?.newVersion,
      hasBaseline: false,
      changes: [],
      level: undefined,
      needed: undefined,
      pending: bumps.get(contract.package),
      problems: [],
    };
    results.push(result);
    const document = readDocument(root, contract.document);
    if (!pkg || !document) {
      result.problems.push({
        kind: "setup",
        message: !pkg
          ? `${contract.package} is not a package of this workspace: fix its entry in contracts/contracts.json.`
          : `${contract.document} does not exist: fix its entry in contracts/contracts.json.`,
      });
      continue;
    }
    const baseline = readDocument(root, contract.baseline);
    if (baseline) {
      result.hasBaseline = true;
      result.changes = await classifyChanges(baseline, document, [contract.baseline, contract.document]);
      result.level = highestLevel(result.changes);
      result.needed = result.level && requiredBump(result.level, version);
      if (result.needed && !covers(result.pending?.bump, result.needed)) {
        result.problems.push({ kind: "bump", message: bumpMessage(result) });
      }
    }
    if (contract.infoVersion === "package") {
      const infoVersion = document.info?.version;
      if (infoVersion !== version && infoVersion !== result.plannedVersion) {
        result.problems.push({
          kind: "info-version",
          message:
            `${contract.document} says info.version ${JSON.stringify(infoVersion)}, but ${contract.package} is ` +
            `${version}${result.plannedVersion ? ` (${result.plannedVersion} once the pending changesets are released)` : ""}. ` +
            `The document's version is its package's version: set info.version back to ${version}; ` +
            "`pnpm version-packages` writes the next one at the release.",
        });
      }
    }
  }
  const names = new Set(packages.map((p) => p.packageJson.name));
  const workspace = packages.map(({ packageJson }) => {
    const { dependencies = {}, peerDependencies = {}, optionalDependencies = {} } = packageJson;
    const used = Object.keys({ ...dependencies, ...peerDependencies, ...optionalDependencies });
    return {
      name: packageJson.name,
      version: packageJson.version,
      private: packageJson.private === true,
      dependsOn: used.filter((name) => names.has(name)),
    };
  });
  const dependents = breakingDependents(workspace, plan, bumps);
  return {
    ok: results.every((r) => r.problems.length === 0) && dependents.length === 0,
    results,
    dependents,
    plan,
  };
}

const kindOf = { breaking: "breaking", minor: "additive", patch: "documentation-only" };

/** @param {ContractResult} r */
function bumpMessage(r) {
  const { contract, level = "patch", needed, pending } = r;
  const pendingText = pending
    ? `the pending changesets bump it by ${pending.bump} only (${pending.changesets.join(", ")})`
    : "no pending changeset names it";
  const lines = [
    `${contract.document} has ${kindOf[level]} changes since the last release (${contract.baseline}), which ` +
      `need a ${needed} changeset for ${contract.package} ${r.version}; ${pendingText}:`,
    ...r.changes.filter((c) => c.level === level).map((c) => `  - ${c.what}  [${c.where}]`),
    level === "breaking"
      ? `If the break is intended, run \`pnpm changeset\`, choose ${contract.package} and "${needed}", and tell ` +
        "users what they must change. Otherwise undo these edits."
      : `Run \`pnpm changeset\`, choose ${contract.package} and "${needed}" (or more), and say what changed.`,
  ];
  return lines.join("\n");
}
