// @ts-check
import { covers } from "./changesets.mjs";
import { requiredBump } from "./required-bump.mjs";

/**
 * The part of a version that `^version` keeps fixed: the major from 1.0.0 on, the minor in 0.x, the patch in
 * 0.0.x (a prerelease counts as the version it leads to).
 *
 * @param {string} version
 * @example
 * caretKey("1.4.2"); // "1"
 * caretKey("0.3.1"); // "0.3"
 */
export function caretKey(version) {
  const [major = 0, minor = 0, patch = 0] = (version.split(/[-+]/)[0] ?? "").split(".").map(Number);
  if (major > 0) return `${major}`;
  return minor > 0 ? `0.${minor}` : `0.0.${patch}`;
}

/**
 * Whether releasing `to` after `from` is breaking by npm's caret rule: `^from` does not take it.
 *
 * @param {string} from
 * @param {string} to
 * @example
 * isBreakingRelease("1.0.0", "2.0.0"); // true
 * isBreakingRelease("0.2.0", "0.2.1"); // false
 */
export const isBreakingRelease = (from, to) => caretKey(from) !== caretKey(to);

/**
 * @typedef {object} WorkspacePackage
 * @property {string} name
 * @property {string} version
 * @property {boolean} [private]
 * @property {string[]} dependsOn the workspace packages it depends on (dependencies, peer and optional ones:
 *   what a user installs with it; devDependencies never reach a user)
 */

/**
 * @typedef {object} DependentProblem
 * @property {string} name the dependent that must take a breaking release
 * @property {string} version its version now
 * @property {import("./changesets.mjs").Bump} needed the bump that is breaking for it (minor in 0.x)
 * @property {{ bump: import("./changesets.mjs").Bump, changesets: string[] } | undefined} pending
 * @property {string[]} through the chain from it to the breaking release: [dependent, …, released package]
 * @property {{ name: string, oldVersion: string, newVersion: string }} release the breaking release it depends on
 */

/**
 * Breaking releases travel up the dependency graph: every published package that depends on a package taking a
 * breaking release (directly, or through another of our packages) must take a breaking release of its own. Our
 * packages expose what they depend on: core and store re-export the contract's generated types, the apps and
 * app-kit expose core's and store's types, and all of them validate, serve or send by the contract. Released as a
 * patch (what changesets gives a dependent whose range the new version leaves), such a package would hand the
 * break to every user whose `^` range takes that patch. Returns each dependent whose pending changesets do not
 * give it a breaking bump, with the chain that makes it breaking.
 *
 * @param {WorkspacePackage[]} packages every package of the workspace
 * @param {{ name: string, oldVersion: string, newVersion: string }[]} plan what `changeset version` would release
 * @param {Map<string, { bump: import("./changesets.mjs").Bump, changesets: string[] }>} bumps the pending changesets
 * @returns {DependentProblem[]}
 * @example
 * breakingDependents(packages, [{ name: "@plant-store/spec", oldVersion: "1.0.0", newVersion: "2.0.0" }], bumps);
 * // [{ name: "@plant-store/core", needed: "minor", through: ["@plant-store/core", "@plant-store/spec"], … }, …]
 */
export function breakingDependents(packages, plan, bumps) {
  /** @type {Map<string, { through: string[], release: DependentProblem["release"] }>} */
  const breaking = new Map();
  for (const release of plan) {
    if (isBreakingRelease(release.oldVersion, release.newVersion)) {
      breaking.set(release.name, { through: [release.name], release });
    }
  }
  // Breadth first: each dependent is reached through its shortest chain to a breaking release.
  const queue = [...breaking.keys()];
  while (queue.length > 0) {
    const name = /** @type {string} */ (queue.shift());
    const cause = /** @type {{ through: string[], release: DependentProblem["release"] }} */ (
      breaking.get(name)
    );
    for (const pkg of packages) {
      if (pkg.private || breaking.has(pkg.name) || !pkg.dependsOn.includes(name)) continue;
      breaking.set(pkg.name, { through: [pkg.name, ...cause.through], release: cause.release });
      queue.push(pkg.name);
    }
  }
  /** @type {DependentProblem[]} */
  const problems = [];
  for (const pkg of packages) {
    const cause = breaking.get(pkg.name);
    if (!cause || cause.through.length === 1) continue; // not a dependent, or breaking by its own changesets
    const needed = requiredBump("breaking", pkg.version);
    const pending = bumps.get(pkg.name);
    if (!covers(pending?.bump, needed)) {
      problems.push({ name: pkg.name, version: pkg.version, needed, pending, ...cause });
    }
  }
  return problems;
}
