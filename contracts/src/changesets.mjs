// @ts-check
import getReleasePlan from "@changesets/get-release-plan";
import readChangesets from "@changesets/read";

/** @typedef {"patch" | "minor" | "major"} Bump */

/** @type {Record<Bump | "none", number>} */
const bumpRank = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * Whether `pending` bumps at least as much as `needed`.
 *
 * @param {Bump | undefined} pending
 * @param {Bump} needed
 * @example
 * covers("major", "minor"); // true
 */
export const covers = (pending, needed) => bumpRank[pending ?? "none"] >= bumpRank[needed];

/**
 * The highest bump each package's pending changesets ask for, read by changesets itself (`.changeset/*.md`,
 * including pre mode's state), with the changesets that ask it.
 *
 * @param {string} root repository root
 * @returns {Promise<Map<string, { bump: Bump, changesets: string[] }>>}
 * @example
 * (await pendingBumps(root)).get("@plant-store/spec"); // { bump: "major", changesets: ["drop-tag"] }
 */
export async function pendingBumps(root) {
  /** @type {Map<string, { bump: Bump, changesets: string[] }>} */
  const bumps = new Map();
  for (const changeset of await readChangesets(root)) {
    for (const release of changeset.releases) {
      if (release.type === "none") continue;
      const seen = bumps.get(release.name);
      if (!seen) bumps.set(release.name, { bump: release.type, changesets: [changeset.id] });
      else {
        seen.changesets.push(changeset.id);
        if (bumpRank[release.type] > bumpRank[seen.bump]) seen.bump = release.type;
      }
    }
  }
  return bumps;
}

/**
 * What `changeset version` would release now (the plan `changeset status` prints): every package with its old and
 * new version, dependents included.
 *
 * @param {string} root repository root
 * @returns {Promise<{ name: string, type: string, oldVersion: string, newVersion: string }[]>}
 * @example
 * for (const r of await releasePlan(root)) console.log(`${r.name} ${r.oldVersion} → ${r.newVersion}`);
 */
export async function releasePlan(root) {
  const plan = await getReleasePlan(root);
  return plan.releases
    .filter((r) => r.type !== "none")
    .map(({ name, type, oldVersion, newVersion }) => ({ name, type, oldVersion, newVersion }));
}
