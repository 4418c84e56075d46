import { type DeliveryOutcome, nextAttempt } from "@plant-store/core";
import type { AttemptInput } from "@plant-store/store";

/** The attempt's label in metrics and logs: core's outcome kind, or `blocked` when the SSRF guard refused it. */
export type AttemptLabel = DeliveryOutcome["kind"] | "blocked";

/** What an attempt does to its delivery. */
export type AttemptAction =
  | { kind: "complete" }
  | { kind: "retry"; at: number }
  /** Kept for resend; `disable` also disables the subscription with that reason (410 Gone). */
  | { kind: "fail"; reason: string; disable?: string | undefined };

/** One attempt's result, as a value: what core's `deliver` answered and what follows from it. */
export interface AttemptResult {
  outcome: DeliveryOutcome;
  label: AttemptLabel;
  action: AttemptAction;
  /** The attempt row the outbox records. */
  attempt: AttemptInput;
}

const GONE = "The endpoint answered 410 Gone.";

/**
 * Decides what an attempt's outcome does to the delivery (attempt number `attempt`, 1-based): 2xx completes; 410
 * fails it and disables the subscription; other failures retry on `schedule` (jitter, clamped Retry-After) until it
 * is exhausted, then fail; a target that cannot work (a refused address included) fails at once.
 *
 * @example
 * ```ts
 * judgeAttempt(await deliver(target, message, { transport }), 1, STANDARD_SCHEDULE_MS, Date.now());
 * // { label: "retry", action: { kind: "retry", at: … }, … }
 * ```
 */
export function judgeAttempt(
  outcome: DeliveryOutcome,
  attempt: number,
  schedule: readonly number[],
  now: number,
): AttemptResult {
  const label: AttemptLabel = outcome.reason === "blocked_address" ? "blocked" : outcome.kind;
  const record: AttemptInput = {
    status: outcome.status ?? null,
    latencyMs: outcome.latencyMs,
    responseBody: outcome.responseBody ?? null,
    error: outcome.error ?? null,
  };
  let action: AttemptAction;
  if (outcome.kind === "delivered") action = { kind: "complete" };
  else if (outcome.kind === "gone") action = { kind: "fail", reason: GONE, disable: GONE };
  else {
    const next = nextAttempt(attempt, outcome, { schedule });
    action = next.retry
      ? { kind: "retry", at: now + next.delayMs }
      : { kind: "fail", reason: outcome.error ?? `status ${outcome.status}` };
  }
  return { outcome, label, action, attempt: record };
}

/**
 * What the attempt's log line says happened to the delivery: its label, except that a last attempt that is not
 * retried failed it for good.
 *
 * @example
 * ```ts
 * loggedOutcome({ label: "retry", action: { kind: "fail", reason: "status 500" } }); // "failed"
 * ```
 */
export function loggedOutcome(result: Pick<AttemptResult, "label" | "action">): string {
  return result.label === "retry" && result.action.kind === "fail" ? "failed" : result.label;
}
