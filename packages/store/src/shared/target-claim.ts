import type { ClaimPlan } from "./claim-plan.js";
import { isConsumerUrl } from "./target-scope.js";

/** What a claim of destinations reads of each target of its scope (both backends; pg numbers may be strings). */
export interface TargetClaimRow {
  id: string;
  url: string;
  enabled: number | boolean;
  paused: number | boolean;
  ordered: number | boolean;
  max_in_flight: number | string | null;
  rate_limit: number | string | null;
  next_send_at: number | string;
  /** A destination's forward cursor (SQLite, decision 45): the last inbox seq it has taken; absent elsewhere. */
  forward_seq?: number | null;
  /** Its event types (a JSON array; null: every type), read with the cursor (SQLite). */
  event_types?: string | null;
}

/** A due delivery as the claim of destinations looks at it. */
export interface DueCandidate {
  id: number;
  subscriptionId: string;
}

/** What the claim decided: rows to lease (with their send times), rows to fail, targets' next send times. */
export interface TargetClaimDecision {
  lease: DueCandidate[];
  /** Send time per leased delivery id of a rate-limited target. */
  notBefore: Map<number, number>;
  /** Rows of a disabled target: failed, never leased. */
  fail: DueCandidate[];
  /** New `next_send_at` per rate-limited target that got rows. */
  nextSendAt: Map<string, number>;
}

const flag = (value: number | boolean) => value === true || value === 1;

/** How far ahead a rate-limited target's send times are handed out: at most a second, at most half the lease. */
export const rateHorizonMs = (leaseMs: number): number => Math.min(1000, Math.floor(leaseMs / 2));

/**
 * Targets whose rows this claim need not look at: with a claim `target` (`only`), every other one; without, every
 * in-process consumer (not HTTP); then paused ones, and rate-limited ones whose next send time is beyond the horizon.
 */
export function skippedTargets(
  targets: readonly TargetClaimRow[],
  at: number,
  horizonMs: number,
  only: string | null,
): string[] {
  const skip: string[] = [];
  for (const t of targets) {
    if (only === null ? isConsumerUrl(t.url) : t.id !== only) skip.push(t.id);
    else if (flag(t.paused)) skip.push(t.id);
    else if (t.rate_limit !== null && Number(t.next_send_at) > at + horizonMs) skip.push(t.id);
  }
  return skip;
}

/**
 * The endpoint options of one claim of destinations, applied to its due candidates (in due order), the same on both
 * backends:
 * - a disabled target's rows are failed;
 * - an ordered target gives at most its head (`heads`: its oldest unfinished delivery), and nothing while the head
 *   is leased or not yet due;
 * - a concurrent target gives at most `max_in_flight` minus what is in flight now (`inFlight`), at most the plan's cap;
 * - a rate-limited target gives rows while send times one interval apart from `max(next_send_at, at)` stay within
 *   the horizon; each leased row carries its send time, and the target's next send time moves past the last.
 *
 * @example
 * ```ts
 * const decision = decideTargetClaim(candidates, targets, heads, inFlight, plan, Date.now());
 * ```
 */
export function decideTargetClaim(
  candidates: readonly DueCandidate[],
  targets: ReadonlyMap<string, TargetClaimRow>,
  heads: ReadonlyMap<string, number>,
  inFlight: ReadonlyMap<string, number>,
  plan: Pick<ClaimPlan, "cap" | "limit" | "leaseMs">,
  at: number,
): TargetClaimDecision {
  const decision: TargetClaimDecision = { lease: [], notBefore: new Map(), fail: [], nextSendAt: new Map() };
  const taken = new Map<string, number>();
  const horizon = at + rateHorizonMs(plan.leaseMs);
  for (const row of candidates) {
    const target = targets.get(row.subscriptionId);
    if (target === undefined) continue; // deleted meanwhile: its rows go with it
    if (!flag(target.enabled)) {
      decision.fail.push(row);
      continue;
    }
    if (decision.lease.length >= plan.limit) continue;
    const n = taken.get(row.subscriptionId) ?? 0;
    if (!admits(target, row, n, heads, inFlight, plan.cap)) continue;
    if (target.rate_limit !== null) {
      const slot = decision.nextSendAt.get(target.id) ?? Math.max(Number(target.next_send_at), at);
      if (slot > horizon) continue;
      decision.notBefore.set(row.id, slot);
      decision.nextSendAt.set(target.id, slot + 1000 / Number(target.rate_limit));
    }
    taken.set(row.subscriptionId, n + 1);
    decision.lease.push(row);
  }
  return decision;
}

/** Whether the target takes one more row in this claim, having taken `n`. */
function admits(
  target: TargetClaimRow,
  row: DueCandidate,
  n: number,
  heads: ReadonlyMap<string, number>,
  inFlight: ReadonlyMap<string, number>,
  cap: number,
): boolean {
  if (flag(target.ordered)) return n === 0 && heads.get(target.id) === row.id;
  const most =
    target.max_in_flight === null ? cap : Number(target.max_in_flight) - (inFlight.get(target.id) ?? 0);
  return n < Math.min(most, cap);
}
