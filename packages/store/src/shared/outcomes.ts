import { type OutcomeKind as DeliveryOutcomeKind, failureReason, GONE_REASON } from "@plant-store/core";
import type { AttemptInput, DeliveryState, LeaseRef, Outbox, RecordedOutcome } from "../api/outbox.js";
import { StoreConflictError, StoreInputError } from "../errors.js";
import { type AttemptValues, attemptValues } from "./attempt.js";
import { toMillis } from "./time.js";

/**
 * What an outcome does to its lease: an attempt's outcome (core's kinds: `delivered`, `retry`, `failed`, `gone`)
 * ends it; `attempt` logs an attempt and keeps the lease; `release` hands it back unattempted.
 */
export type OutcomeKind = DeliveryOutcomeKind | "attempt" | "release";

const RECORDED_KINDS: readonly string[] = [
  "delivered",
  "retry",
  "failed",
  "gone",
] satisfies DeliveryOutcomeKind[];

/**
 * One lease transition as a value. The outbox's outcome recorder (both backends) writes the outcomes that arrive in
 * one event-loop turn together: one transaction (SQLite) or one statement (PostgreSQL).
 */
export interface Outcome {
  lease: LeaseRef;
  kind: OutcomeKind;
  /** The attempt to log, validated and truncated. */
  attempt: AttemptValues | undefined;
  /** When a `retry` (or a `release`) is due again. */
  nextAt: number;
  /** Why it failed (`failed`: the error or status; `gone`: `GONE_REASON`): kept as the delivery's last error. */
  reason: string | null;
}

/** `last_error` of a delivery failed because its subscription was disabled while it was leased. */
export const DISABLED_REASON = "subscription disabled";

/** `last_error` of the pending deliveries failed when their subscription is disabled with `reason`. */
export const disabledPendingError = (reason: string): string => `${DISABLED_REASON}: ${reason}`;

/**
 * Builds an {@link Outcome} from the public API's arguments (`attempt` validated against `now`).
 *
 * @example
 * ```ts
 * outcomeOf(lease, "retry", { status: 503, latencyMs: 4 }, Date.now(), { nextAt: Date.now() + 5000 });
 * ```
 */
export function outcomeOf(
  lease: LeaseRef,
  kind: OutcomeKind,
  attempt: AttemptInput | undefined,
  now: number,
  options: { nextAt?: number; reason?: string | null } = {},
): Outcome {
  return {
    lease,
    kind,
    attempt: attempt === undefined ? undefined : attemptValues(attempt, now),
    nextAt: options.nextAt ?? now,
    reason: options.reason ?? null,
  };
}

/**
 * The lease transition an attempt's recorded outcome makes, as a value: its kind checked, its attempt validated
 * against `now`, a retry dated (`retryAt`, else due at once) and a failure's reason taken from its error or status.
 *
 * @example
 * ```ts
 * recordedOutcome(lease, { kind: "gone", status: 410, latencyMs: 3 }, Date.now()); // reason GONE_REASON
 * ```
 */
export function recordedOutcome(lease: LeaseRef, outcome: RecordedOutcome, now: number): Outcome {
  const kind = outcome?.kind;
  if (!RECORDED_KINDS.includes(kind)) {
    throw new StoreInputError("invalid_attempt", "outcome.kind must be delivered, retry, failed or gone.");
  }
  const reason = kind === "gone" ? GONE_REASON : kind === "failed" ? failureReason(outcome) : null;
  const nextAt = kind === "retry" && outcome.retryAt !== undefined ? toMillis(outcome.retryAt) : now;
  return outcomeOf(lease, kind, outcome, now, { nextAt, reason });
}

/**
 * The outbox methods that end or log a lease, over a backend's outcome recorder: both backends wire them the same
 * way, and differ only in how a released lease wakes the workers (`afterRelease`).
 *
 * @example
 * ```ts
 * const outbox = { ...outcomeMethods(recorder, now, () => ctx.outboxWork.emit()), claim, publish };
 * ```
 */
export function outcomeMethods(
  recorder: { record(outcome: Outcome): Promise<void> },
  now: () => number,
  afterRelease: () => unknown,
): Pick<Outbox, "recordAttempt" | "record" | "release"> {
  return {
    recordAttempt: async (lease, attempt) => recorder.record(outcomeOf(lease, "attempt", attempt, now())),
    record: async (lease, outcome) => recorder.record(recordedOutcome(lease, outcome, now())),
    release: async (lease) => {
      await recorder.record(outcomeOf(lease, "release", undefined, now()));
      await afterRelease();
    },
  };
}

/** How an outcome moves its subscription's failure streak: `ok` ends it, `fail` starts it if none, `none` leaves it. */
export type StreakEffect = "ok" | "fail" | "none";

/**
 * What each outcome kind does, once, for both backends: the delivery's next state while its subscription is enabled
 * and once it is disabled (a retry or a handed-back lease of a disabled subscription fails: it would never be claimed
 * usefully again), how it moves the failure streak, and whether it disables its subscription (a 410 Gone). SQLite
 * applies it through `transitionOf` and `netStreaks`; PostgreSQL's `finishManySql` takes the values they decide as
 * parameters and holds no rule of its own.
 */
export const LEASE_RULES: Readonly<
  Record<
    OutcomeKind,
    { state: DeliveryState; ifDisabled: DeliveryState; streak: StreakEffect; disables: boolean }
  >
> = {
  attempt: { state: "leased", ifDisabled: "leased", streak: "none", disables: false },
  release: { state: "pending", ifDisabled: "failed", streak: "none", disables: false },
  retry: { state: "pending", ifDisabled: "failed", streak: "fail", disables: false },
  delivered: { state: "delivered", ifDisabled: "delivered", streak: "ok", disables: false },
  failed: { state: "failed", ifDisabled: "failed", streak: "fail", disables: false },
  gone: { state: "failed", ifDisabled: "failed", streak: "fail", disables: true },
};

export const streakOf = (kind: OutcomeKind): StreakEffect => LEASE_RULES[kind].streak;

/**
 * One outcome's step of its subscription's `failing_since`, as two values a fold applies in order:
 * `failing_since = coalesce(keep ? failing_since : null, startsAt)`. `ok` clears it, `fail` starts it at its time
 * if there is none, `none` leaves it.
 */
export function streakStep(effect: StreakEffect, at: number): { keep: boolean; startsAt: number | null } {
  return { keep: effect !== "ok", startsAt: effect === "fail" ? at : null };
}

/**
 * What an outcome writes to its delivery. `null` keeps a column as it is: `dueAt` (an attempt logged mid-lease keeps
 * the lease's expiry) and `error` when nothing was attempted and no reason given; `counted` adds one to `attempts`
 * and sets `last_status` to `status`. The lease (owner and token) stays only with a delivery that stays `leased`.
 */
export interface Transition {
  state: DeliveryState;
  dueAt: number | null;
  counted: boolean;
  status: number | null;
  error: string | null;
  finishedAt: number | null;
}

/**
 * The transition `outcome` makes at `now`, its subscription `enabled` or not, from {@link LEASE_RULES}: a leased
 * delivery keeps its expiry, a pending one is due at the outcome's `nextAt`, a finished one is stamped `now`; one
 * failed because its subscription is disabled says so ({@link DISABLED_REASON}).
 *
 * @example
 * ```ts
 * transitionOf(outcome, true, Date.now()); // { state: "pending", dueAt: outcome.nextAt, counted: true, … }
 * ```
 */
export function transitionOf(outcome: Outcome, enabled: boolean, now: number): Transition {
  const { kind, attempt } = outcome;
  const rule = LEASE_RULES[kind];
  const state = enabled ? rule.state : rule.ifDisabled;
  const refused = state !== rule.state;
  return {
    state,
    dueAt: state === "leased" ? null : state === "pending" ? outcome.nextAt : now,
    counted: attempt !== undefined,
    status: attempt ? attempt.status : null,
    error: refused ? DISABLED_REASON : (outcome.reason ?? attempt?.error ?? null),
    finishedAt: state === "delivered" || state === "failed" ? now : null,
  };
}

/**
 * Each subscription's `failing_since` after a turn's outcomes, folding their {@link streakStep}s in order over its
 * current value; only the subscriptions whose value changes are returned.
 *
 * @example
 * ```ts
 * netStreaks([{ subscriptionId: "a", effect: "fail", at: 5 }], new Map([["a", null]])); // Map { "a" => 5 }
 * ```
 */
export function netStreaks(
  effects: readonly { subscriptionId: string; effect: StreakEffect; at: number }[],
  current: ReadonlyMap<string, number | null>,
): Map<string, number | null> {
  const after = new Map<string, number | null>();
  for (const { subscriptionId, effect, at } of effects) {
    if (effect === "none") continue;
    const was = after.has(subscriptionId) ? after.get(subscriptionId) : current.get(subscriptionId);
    const { keep, startsAt } = streakStep(effect, at);
    after.set(subscriptionId, (keep ? was : null) ?? startsAt);
  }
  for (const [id, value] of after) if ((current.get(id) ?? null) === value) after.delete(id);
  return after;
}

/** The error of an outcome whose lease is gone (expired and reclaimed, or finished already). */
export function leaseLost(lease: LeaseRef): StoreConflictError {
  return new StoreConflictError(
    "lease_lost",
    `Delivery ${lease?.id} is no longer leased with this token (the lease expired and was reclaimed, or it was finished).`,
  );
}

/** A recorded outcome: written, or refused alone because its lease was lost. */
export type OutcomeResult = { ok: true } | { ok: false; error: StoreConflictError };
