import type { CheckResult, ReportSummary } from "./types.js";

/** Counts of a run's results; `mustFailed` decides the run. */
export function summarize(results: readonly CheckResult[], ms: number): ReportSummary {
  return {
    passed: results.filter((result) => result.verdict === "pass").length,
    failed: results.filter((result) => result.verdict === "fail").length,
    skipped: results.filter((result) => result.verdict === "skip").length,
    mustFailed: results.filter((result) => result.verdict === "fail" && result.level === "MUST").length,
    ms: Math.round(ms),
  };
}
