import { type DeliveryOutcome, settleOutcome } from "@plant-store/core";

/** The attempt's label in metrics and logs: core's outcome kind, or `blocked` when the SSRF guard refused it. */
export type AttemptLabel = DeliveryOutcome["kind"] | "blocked";

/** One attempt's result, as a value: the outcome the outbox records, and the attempt's label. */
export interface AttemptResult {
  /** What core's `deliver` answered, settled against the retry schedule (`settleOutcome`): recorded as is. */
  outcome: DeliveryOutcome;
  /** What `deliver` answered, for metrics (a last `retry` keeps its label though it fails the delivery). */
  label: AttemptLabel;
}

/**
 * Settles what `deliver` answered for attempt number `attempt` (1-based): a retry is dated on `schedule` (jitter,
 * clamped Retry-After) until it is exhausted, then fails; 2xx, 410 and an unusable target (a refused address
 * included) are recorded as they came.
 *
 * @example
 * ```ts
 * judgeAttempt(await deliver(target, message, { transport }), 1, STANDARD_SCHEDULE_MS, Date.now());
 * // { label: "retry", outcome: { kind: "retry", retryAt: …, … } }
 * ```
 */
export function judgeAttempt(
  sent: DeliveryOutcome,
  attempt: number,
  schedule: readonly number[],
  now: number,
): AttemptResult {
  const label: AttemptLabel = sent.reason === "blocked_address" ? "blocked" : sent.kind;
  return { outcome: settleOutcome(sent, attempt, { schedule, now }), label };
}

/**
 * What the attempt's log line says happened to the delivery: its label, except that a last attempt that is not
 * retried failed it for good.
 *
 * @example
 * ```ts
 * loggedOutcome({ label: "retry", outcome: { kind: "failed", latencyMs: 3, timestamp: 0 } }); // "failed"
 * ```
 */
export function loggedOutcome(result: AttemptResult): string {
  return result.label === "retry" && result.outcome.kind === "failed" ? "failed" : result.label;
}
