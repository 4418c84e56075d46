// @ts-check

/**
 * Renders the gate's result for a terminal: each contract's verdict, every problem with what to do, and the
 * release plan. `verbose` lists every change, not only those of a failing contract.
 *
 * @param {import("./check.mjs").GateResult} result
 * @param {{ verbose?: boolean }} [options]
 * @returns {string}
 * @example
 * console.log(formatReport(await checkContracts(root)));
 */
export function formatReport(result, { verbose = false } = {}) {
  const lines = [];
  for (const r of result.results) {
    const { contract } = r;
    const head = `contract gate: ${contract.package} (${contract.document})`;
    if (!r.hasBaseline && r.problems.length === 0) {
      lines.push(`${head}: never released (no ${contract.baseline}); \`pnpm version-packages\` records it.`);
    } else if (r.problems.length === 0) {
      const summary = r.changes.length
        ? `${r.changes.length} change(s) since the last release, the most demanding ${r.level}: ` +
          `needs ${r.needed}, the pending changesets give ${r.pending?.bump}`
        : "unchanged since the last release";
      lines.push(`${head}: ok, ${summary}.`);
    } else {
      lines.push(`${head}: FAILED`);
      for (const p of r.problems) lines.push(...p.message.split("\n").map((l) => `  ${l}`));
    }
    if (verbose && r.changes.length) {
      for (const c of r.changes) {
        const review = c.tool === "unclassified" ? " (no rule for it: counted as minor, review it)" : "";
        lines.push(`    ${c.level.padEnd(8)} ${c.what}  [${c.where}]${review}`);
      }
    }
  }
  if (result.dependents.length > 0) {
    lines.push("contract gate: releases of the packages that depend on a breaking release: FAILED");
    /** @type {Map<string, import("./dependents.mjs").DependentProblem[]>} */
    const byRelease = new Map();
    for (const d of result.dependents) {
      byRelease.set(d.release.name, [...(byRelease.get(d.release.name) ?? []), d]);
    }
    for (const [name, dependents] of byRelease) {
      const { oldVersion, newVersion } = /** @type {import("./dependents.mjs").DependentProblem} */ (
        dependents[0]
      ).release;
      lines.push(
        `  ${name} ${oldVersion} → ${newVersion} is a breaking release (^${oldVersion} does not take it). Our packages ` +
          "that depend on it expose it (its types, what it accepts), so each must be released as breaking too; a " +
          "patch would hand the break to every user whose ^ range takes that patch:",
        ...dependents.map((d) => {
          const pendingText = d.pending
            ? `the pending changesets bump it by ${d.pending.bump} only (${d.pending.changesets.join(", ")})`
            : "no pending changeset names it";
          return `  - ${d.name} ${d.version} needs ${d.needed} (${d.through.join(" → ")}); ${pendingText}`;
        }),
      );
    }
    lines.push(
      "  Run `pnpm changeset`, choose each package above with the bump shown, and tell its users what changes for them.",
    );
  }
  lines.push(
    result.plan.length
      ? "Release plan (what `changeset version` would release now, as `changeset status` reports it):"
      : "Release plan: nothing to release (no pending changesets).",
  );
  for (const r of result.plan) lines.push(`  ${r.name} ${r.oldVersion} → ${r.newVersion} (${r.type})`);
  return lines.join("\n");
}
