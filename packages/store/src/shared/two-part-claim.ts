import type { ClaimedDelivery } from "../api/outbox.js";
import type { ClaimPlan } from "./claim-plan.js";

/**
 * The sender's claim while some subscriptions have a rate limit is two transactions: the options claim of the
 * limited subscriptions' rows FIRST (each takes at most what its rate allows, so a backlog of unlimited rows can never
 * starve them), then the one-statement claim of the rest with the limited ones skipped. This is the second part's
 * plan: the limit that is left, its per-subscription cap and scan recomputed, or `null` when the first part filled it.
 *
 * @example
 * ```ts
 * restAfterLimited(claimPlan(64, { leaseMs: 30_000, workerId: "w" }), 3, ["sub_limited"]); // limit 61, skip sub_limited
 * ```
 */
export function restAfterLimited(
  plan: ClaimPlan,
  taken: number,
  limited: readonly string[],
): ClaimPlan | null {
  const limit = plan.limit - taken;
  if (limit <= 0) return null;
  const cap = Math.min(plan.cap, limit);
  return { ...plan, limit, cap, scan: cap < limit ? limit + cap : limit, skip: [...plan.skip, ...limited] };
}

/**
 * What a two-part claim does when its second part fails after the first committed leases: it hands those leased rows
 * to the worker (left unreturned they would wait for their lease to expire) and holds the error, which the next claim
 * throws before it claims anything, so the failure still reaches the worker's log and back-off. A failure with
 * nothing claimed is thrown at once.
 *
 * @example
 * ```ts
 * const held = heldClaimFailure();
 * held.rethrow(); // at the start of each claim
 * try { more = await second(); } catch (error) { return held.keep(claimed, error); }
 * ```
 */
export function heldClaimFailure(): {
  rethrow(): void;
  keep(claimed: ClaimedDelivery[], error: unknown): ClaimedDelivery[];
} {
  let held: { error: unknown } | null = null;
  return {
    rethrow() {
      if (held === null) return;
      const { error } = held;
      held = null;
      throw error;
    },
    keep(claimed, error) {
      if (claimed.length === 0) throw error;
      held = { error };
      return claimed;
    },
  };
}
