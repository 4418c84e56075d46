/**
 * `@plant-store/conformance`: checks anyone's receiver (over HTTP or a Fetch handler in-process) and anyone's
 * sender against the Plant Store contract, RFC 6750 and Standard Webhooks, with a report per check id.
 *
 * @example
 * ```ts
 * import { checkReceiver, toText } from "@plant-store/conformance";
 * const report = await checkReceiver({ url: "http://127.0.0.1:4000/plant/webhook", token, secrets: [secret] });
 * process.stdout.write(toText(report));
 * process.exitCode = report.summary.mustFailed > 0 ? 1 : 0;
 * ```
 *
 * @module
 */

export { receiverChecks } from "./receiver/catalog.js";
export type { Finding, Need, ReceiverCheck } from "./receiver/check.js";
export { RECEIVER_DEFAULTS, type ReceiverOptions } from "./receiver/context.js";
export { checkReceiver } from "./receiver/run.js";
export { toJUnit } from "./report/junit.js";
export { resultLine, toText } from "./report/text.js";
export { senderChecks } from "./sender/checks.js";
export { createSenderJudge, type SenderJudge, type SenderJudgeOptions } from "./sender/judge.js";
export type { Arrival } from "./sender/record.js";
export { DOCS_BASE, docsUrl, SOURCES } from "./sources.js";
export type {
  CheckInfo,
  CheckResult,
  Exchange,
  Level,
  Report,
  ReportSummary,
  Source,
  Verdict,
} from "./types.js";
