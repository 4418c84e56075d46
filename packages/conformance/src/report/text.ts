import type { CheckResult, Report } from "../types.js";

const MARK = { pass: "PASS", fail: "FAIL", skip: "SKIP" } as const;

/** One result as a table row: verdict, level, id, and what happened. */
export function resultLine(result: CheckResult): string {
  return `${MARK[result.verdict]}  ${result.level.padEnd(6)} ${result.id.padEnd(28)} ${result.detail}`;
}

/**
 * The report as text: a row per check, then each failure with what was sent, what came back and the fix, then
 * the totals. Plain text, so it reads the same in a terminal, a CI log or a file.
 */
export function toText(report: Report): string {
  const lines = [
    `Plant Store conformance, ${report.suite} suite: ${report.target}`,
    "",
    ...report.results.map(resultLine),
  ];
  for (const result of report.results.filter((r) => r.verdict === "fail")) {
    lines.push("", `${result.level} ${result.id}: ${result.title}`, `  ${result.detail}`);
    const [first] = result.exchanges;
    if (first) {
      lines.push(`  sent: ${first.request.method} ${first.request.url} ${first.request.body.slice(0, 120)}`);
      lines.push(
        `  got:  ${first.response ? `${first.response.status} ${first.response.body.slice(0, 120)}` : first.error}`,
      );
    }
    lines.push(
      `  fix:  ${result.fix}`,
      `  see:  ${result.docs} (${result.source.document}, ${result.source.section})`,
    );
  }
  for (const result of report.results.filter((r) => r.note && r.verdict === "pass"))
    lines.push("", `note ${result.id}: ${result.note}`);
  const { summary } = report;
  lines.push(
    "",
    `${summary.passed} passed, ${summary.failed} failed (${summary.mustFailed} MUST), ${summary.skipped} skipped in ${(summary.ms / 1000).toFixed(1)} s`,
  );
  return `${lines.join("\n")}\n`;
}
