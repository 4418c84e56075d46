// @ts-check

/**
 * The changeset bump a contract change needs, by changesets' (and npm's caret) rules:
 * - from 1.0.0 on: breaking → major, minor → minor, patch → patch;
 * - in 0.x, where `^0.y.z` accepts only 0.y.*, a minor bump is the breaking one: breaking → minor, and a change
 *   that breaks nobody (minor or patch) → patch. (A `major` changeset on 0.x releases 1.0.0.)
 *
 * @param {import("./classify.mjs").ChangeLevel} level
 * @param {string} version the package's current version
 * @returns {import("./changesets.mjs").Bump}
 * @example
 * requiredBump("breaking", "1.4.0"); // "major"
 * requiredBump("breaking", "0.3.1"); // "minor"
 */
export function requiredBump(level, version) {
  const zeroMajor = version.startsWith("0.");
  if (level === "breaking") return zeroMajor ? "minor" : "major";
  if (level === "minor") return zeroMajor ? "patch" : "minor";
  return "patch";
}
