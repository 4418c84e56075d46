import type { Report } from "../types.js";

function xml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] as string,
  );
}

/**
 * The report as JUnit XML, one test case per check (`classname` is the suite and level), for CI systems that
 * read JUnit: a failed MUST is a `<failure>`, a failed SHOULD a `<failure type="SHOULD">`, a skip a `<skipped>`.
 *
 * @example
 * ```ts
 * await writeFile("conformance.xml", toJUnit(await checkReceiver(options)));
 * ```
 */
export function toJUnit(report: Report): string {
  const cases = report.results.map((result) => {
    const head = `    <testcase classname="plant-store.conformance.${report.suite}.${result.level}" name="${xml(`${result.id}: ${result.title}`)}" time="${(result.ms / 1000).toFixed(3)}">`;
    if (result.verdict === "pass") return `${head}</testcase>`;
    const body =
      result.verdict === "skip"
        ? `<skipped message="${xml(result.detail)}"/>`
        : `<failure type="${result.level}" message="${xml(result.detail)}">${xml(`${result.detail}\nFix: ${result.fix}\nSee ${result.docs}`)}</failure>`;
    return `${head}\n      ${body}\n    </testcase>`;
  });
  const { summary } = report;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="plant-store conformance" tests="${report.results.length}" failures="${summary.failed}" skipped="${summary.skipped}" time="${(summary.ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${report.suite}: ${xml(report.target)}" tests="${report.results.length}" failures="${summary.failed}" skipped="${summary.skipped}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
