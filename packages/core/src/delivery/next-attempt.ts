import { PlantStoreError } from "../errors.js";
import type { DeliveryOutcome } from "./types.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The Standard Webhooks retry schedule: `STANDARD_SCHEDULE_MS[i]` is the delay before attempt `i + 1`
 * (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), so a message gets 10 attempts
 * over about 3 days.
 *
 * @example
 * ```ts
 * import { STANDARD_SCHEDULE_MS } from "@plant-store/core";
 * STANDARD_SCHEDULE_MS[1]; // 5000: the delay after the first attempt
 * ```
 */
export const STANDARD_SCHEDULE_MS: readonly number[] = Object.freeze([
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
]);

/** Default jitter: each delay is spread uniformly over ±20 %. */
export const DEFAULT_JITTER = 0.2;
/** Default upper bound for a delay asked by `Retry-After`. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * What to do after an attempt: retry after `delayMs`, or stop and why.
 *
 * @example
 * ```ts
 * const next: NextAttempt = { retry: false, reason: "exhausted" };
 * ```
 */
export type NextAttempt =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "delivered" | "gone" | "failed" | "exhausted" };

/**
 * Options of {@link nextAttempt}.
 *
 * @example
 * ```ts
 * const options: NextAttemptOptions = { schedule: [0, 10, 20], jitter: 0 }; // tests compress time
 * ```
 */
export interface NextAttemptOptions {
  /** `schedule[i]` is the delay before attempt `i + 1`. Default {@link STANDARD_SCHEDULE_MS}. */
  schedule?: readonly number[] | undefined;
  /** Uniform in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
  /** Relative spread in [0, 1]. Default 0.2. */
  jitter?: number | undefined;
  /** Upper bound for a `Retry-After` delay. Default 24 h. */
  maxRetryAfterMs?: number | undefined;
}

/**
 * Decides the retry after attempt number `attempt` (1-based) ended with `outcome`.
 *
 * `delivered`, `gone` and `failed` stop with that reason; a `retry` after the last scheduled attempt
 * stops as `exhausted`. Otherwise the delay is `schedule[attempt]` spread by ±`jitter`.
 *
 * Clamp rule for `Retry-After` (`outcome.retryAfterMs`): the delay is the asked delay plus up to
 * `jitter` more (never earlier than asked; spreads endpoints' shared deadlines), clamped to
 * [jittered schedule delay, `maxRetryAfterMs`]. So an endpoint can slow retries down, up to 24 h by
 * default, but never speed them up; and when the schedule's own delay exceeds `maxRetryAfterMs` the
 * schedule wins. The attempt budget is unchanged either way.
 *
 * @example
 * ```ts
 * import { nextAttempt } from "@plant-store/core";
 * const outcome = { kind: "retry", status: 503, latencyMs: 8, timestamp: 1732077903 } as const;
 * nextAttempt(1, outcome, { random: () => 0.5 }); // { retry: true, delayMs: 5000 }
 * nextAttempt(1, { ...outcome, retryAfterMs: 60_000 }, { jitter: 0 }); // { retry: true, delayMs: 60000 }
 * nextAttempt(10, outcome); // { retry: false, reason: "exhausted" }
 * ```
 */
export function nextAttempt(
  attempt: number,
  outcome: DeliveryOutcome,
  options: NextAttemptOptions = {},
): NextAttempt {
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new PlantStoreError(
      "invalid_attempt",
      `The attempt number must be an integer ≥ 1, got ${attempt}.`,
    );
  }
  if (outcome.kind !== "retry") return { retry: false, reason: outcome.kind };

  const schedule = options.schedule ?? STANDARD_SCHEDULE_MS;
  const base = schedule[attempt];
  if (base === undefined) return { retry: false, reason: "exhausted" };
  const jitter = options.jitter ?? DEFAULT_JITTER;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  checkRange("schedule", base, 0, Number.MAX_SAFE_INTEGER);
  checkRange("jitter", jitter, 0, 1);
  checkRange("maxRetryAfterMs", maxRetryAfterMs, 0, Number.MAX_SAFE_INTEGER);
  const r = (options.random ?? Math.random)();
  if (!(r >= 0 && r < 1)) {
    throw new PlantStoreError("invalid_option", `random() must return a number in [0, 1), got ${r}.`);
  }

  const scheduled = base * (1 + jitter * (2 * r - 1));
  const asked = outcome.retryAfterMs;
  if (asked === undefined || !(asked >= 0)) return { retry: true, delayMs: Math.round(scheduled) };
  const spread = Math.min(asked, Number.MAX_SAFE_INTEGER) * (1 + jitter * r);
  const delay = Math.min(Math.max(spread, scheduled), Math.max(maxRetryAfterMs, scheduled));
  return { retry: true, delayMs: Math.round(delay) };
}

/**
 * Settles attempt number `attempt`'s outcome against the retry policy, as the value the outbox records: a `retry`
 * gets its `retryAt` (`now` plus {@link nextAttempt}'s delay), and a `retry` past the last scheduled attempt becomes
 * `failed` (its error and status kept). Other outcomes are returned as they are.
 *
 * @example
 * ```ts
 * import { settleOutcome } from "@plant-store/core";
 * const outcome = { kind: "retry", status: 503, latencyMs: 8, timestamp: 1732077903 } as const;
 * settleOutcome(outcome, 1, { now: 1_000, jitter: 0 }); // { …, kind: "retry", retryAt: 6_000 }
 * settleOutcome(outcome, 10, { now: 1_000 }); // { …, kind: "failed" }
 * ```
 */
export function settleOutcome(
  outcome: DeliveryOutcome,
  attempt: number,
  options: NextAttemptOptions & { now?: number | undefined } = {},
): DeliveryOutcome {
  if (outcome.kind !== "retry") return outcome;
  const next = nextAttempt(attempt, outcome, options);
  return next.retry
    ? { ...outcome, retryAt: (options.now ?? Date.now()) + next.delayMs }
    : { ...outcome, kind: "failed" };
}

function checkRange(name: string, value: number, min: number, max: number): void {
  if (!(value >= min && value <= max)) {
    throw new PlantStoreError("invalid_option", `${name} must be between ${min} and ${max}, got ${value}.`);
  }
}
