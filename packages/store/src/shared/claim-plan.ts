import type { ClaimOptions, TargetScope } from "../api/outbox.js";
import { StoreInputError } from "../errors.js";
import { checkClaimTarget, checkScope } from "./target-scope.js";
import { checkKey, checkPositiveInt } from "./validate.js";

/** Most deliveries one claim hands out. */
export const MAX_CLAIM = 1000;

/** A claim's validated parameters, the same for both backends. */
export interface ClaimPlan {
  limit: number;
  leaseMs: number;
  workerId: string;
  /** Whose deliveries: the sender's subscriptions or the receiver's destinations. */
  scope: TargetScope;
  /** The one target claimed (an in-process consumer), or `null`: every target of the scope but consumers. */
  target: string | null;
  /** Subscription ids not to claim. */
  skip: readonly string[];
  /** Per-subscription cap within this claim (`limit` when there is none). */
  cap: number;
  /**
   * How many due rows are looked at: `limit`, or `limit + cap` with a cap — enough to fill the claim when
   * subscriptions interleave, and bounded when one subscription's backlog comes first (that one then reaches its
   * cap, is skipped by the worker's next claim, and the rows behind it come out).
   */
  scan: number;
}

/**
 * Validates `claim(limit, options)` once for both backends.
 *
 * @example
 * ```ts
 * claimPlan(10, { leaseMs: 30_000, workerId: "w1", maxPerSubscription: 2 }); // { cap: 2, scan: 12, … }
 * ```
 */
export function claimPlan(limit: number, options: ClaimOptions): ClaimPlan {
  checkPositiveInt(limit, "claim limit");
  const leaseMs = checkPositiveInt(options?.leaseMs, "leaseMs");
  const workerId = checkKey(options.workerId, "worker id");
  const skip = options.skipSubscriptions ?? [];
  if (!Array.isArray(skip) || skip.some((id) => typeof id !== "string")) {
    throw new StoreInputError(
      "invalid_skip_subscriptions",
      "skipSubscriptions must be an array of subscription ids.",
    );
  }
  const capped = Math.min(limit, MAX_CLAIM);
  const cap =
    options.maxPerSubscription === undefined
      ? capped
      : Math.min(capped, checkPositiveInt(options.maxPerSubscription, "max per subscription"));
  const scope = checkScope(options.scope);
  const target = checkClaimTarget(options.target, scope);
  return {
    limit: capped,
    leaseMs,
    workerId,
    scope,
    target,
    skip,
    cap,
    scan: cap < capped ? capped + cap : capped,
  };
}

/**
 * Keeps due rows (in due order) up to the plan's limit, at most `cap` per subscription (`subscriptionOf` reads a
 * row's subscription id).
 *
 * @example
 * ```ts
 * pickDue([{ subscription_id: "a" }, { subscription_id: "a" }, { subscription_id: "b" }], { cap: 1, limit: 5 },
 *   (row) => row.subscription_id); // a, b
 * ```
 */
export function pickDue<Row>(
  rows: readonly Row[],
  plan: Pick<ClaimPlan, "cap" | "limit">,
  subscriptionOf: (row: Row) => string,
): Row[] {
  if (plan.cap >= plan.limit) return rows.slice(0, plan.limit);
  const taken = new Map<string, number>();
  const picked: Row[] = [];
  for (const row of rows) {
    const subscription = subscriptionOf(row);
    const n = taken.get(subscription) ?? 0;
    if (n >= plan.cap) continue;
    taken.set(subscription, n + 1);
    picked.push(row);
    if (picked.length === plan.limit) break;
  }
  return picked;
}
