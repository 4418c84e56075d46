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
  lines.push(
    result.plan.length
      ? "Release plan (what `changeset version` would release now, as `changeset status` reports it):"
      : "Release plan: nothing to release (no pending changesets).",
  );
  for (const r of result.plan) lines.push(`  ${r.name} ${r.oldVersion} → ${r.newVersion} (${r.type})`);
  return lines.join("\n");
}
