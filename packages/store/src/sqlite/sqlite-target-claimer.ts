import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import type { ClaimedDelivery } from "../api/outbox.js";
import type { ClaimPlan } from "../shared/claim-plan.js";
import { type ClaimedSubscriptionRow, claimedSubscriptions } from "../shared/claimed-subscription.js";
import { DISABLED_REASON } from "../shared/outcomes.js";
import { traceCarrierOf } from "../shared/rows.js";
import {
  type DueCandidate,
  decideTargetClaim,
  rateHorizonMs,
  skippedTargets,
  type TargetClaimRow,
} from "../shared/target-claim.js";
import type { SqliteContext } from "./context.js";
import {
  CLAIMED_DESTINATION,
  DESTINATION_CLAIM_ROWS,
  DESTINATION_DUE,
  FAIL_DISABLED,
  HEAD_OF,
  IN_FLIGHT_OF,
  LAST_INBOX_SEQ,
  LEASE_MANY,
  LEASED_FORWARDS,
  LIMITED_CLAIM_ROWS,
  LIMITED_DUE,
  MOVE_FORWARD_CURSOR,
  SET_NEXT_SEND,
  TAKE_DELIVERIES,
  TAKE_MESSAGES,
  TAKE_WINDOW_END,
} from "./outbox-sql.js";

/**
 * The claim's targets (every destination, or the rate-limited subscriptions `only`) and their due candidates,
 * those skipped left out, with the forwards a destination takes now (`takeForwards`); `null` when none.
 */
function targetsAndDue(
  ctx: SqliteContext,
  plan: ClaimPlan,
  at: number,
  only: readonly string[] | null,
): { targets: TargetClaimRow[]; candidates: DueCandidate[] } | null {
  const targets = (
    only === null
      ? ctx.sql(DESTINATION_CLAIM_ROWS).all()
      : ctx.sql(LIMITED_CLAIM_ROWS).all(JSON.stringify(only))
  ) as TargetClaimRow[];
  if (targets.length === 0) return null;
  const skip = [...plan.skip, ...skippedTargets(targets, at, rateHorizonMs(plan.leaseMs), plan.target)];
  // Every target skipped (paused, rate-limited, at its cap, a consumer or not the claim's target): their backlog is not walked for nothing.
  if (targets.every((t) => skip.includes(t.id))) return null;
  const rows = (
    only === null
      ? ctx.sql(DESTINATION_DUE).raw(true).all(at, JSON.stringify(skip), plan.scan)
      : ctx
          .sql(LIMITED_DUE)
          .raw(true)
          .all(at, JSON.stringify(targets.filter((t) => !skip.includes(t.id)).map((t) => t.id)), plan.scan)
  ) as [number, string][];
  const candidates = rows.map(([id, subscriptionId]): DueCandidate => ({ id, subscriptionId }));
  if (only === null) takeForwards(ctx, targets, skip, candidates, plan.limit);
  return candidates.length === 0 ? null : { targets, candidates };
}

/**
 * Decision 45: a destination's pending forwards are the inbox events after its cursor (`forward_seq`) that its
 * types take; nothing is written for them at ingest. Each destination this claim may serve (not skipped: not
 * paused, not a consumer unless it is the claim's target) and whose cursor is behind takes the next events, as many
 * as the claim's limit less its due rows already among the candidates (so its rows stay bounded while it is slow):
 * their message and delivery rows are created in the claim's transaction, in seq order, and its cursor moves past
 * the events looked at. The new rows join the candidates (after the older ones) and the options decide as for any.
 */
function takeForwards(
  ctx: SqliteContext,
  targets: readonly TargetClaimRow[],
  skip: readonly string[],
  candidates: DueCandidate[],
  limit: number,
): void {
  let last: number | undefined;
  for (const target of targets) {
    const cursor = target.forward_seq;
    if (cursor === undefined || cursor === null || skip.includes(target.id)) continue;
    last ??= ctx.sql(LAST_INBOX_SEQ).pluck().get() as number;
    if (cursor >= last) continue;
    let due = 0;
    for (const candidate of candidates) if (candidate.subscriptionId === target.id) due++;
    if (due >= limit) continue;
    const to = ctx
      .sql(TAKE_WINDOW_END)
      .pluck()
      .get(cursor, limit - due) as number;
    ctx.sql(TAKE_MESSAGES).run(target.id, cursor, to);
    const taken = ctx.sql(TAKE_DELIVERIES).run(target.id, cursor, to);
    ctx.sql(MOVE_FORWARD_CURSOR).run(to, target.id);
    // One statement under the write lock: AUTOINCREMENT gives its rows consecutive ids, the last one reported.
    const first = Number(taken.lastInsertRowid) - taken.changes + 1;
    for (let i = 0; i < taken.changes; i++) candidates.push({ id: first + i, subscriptionId: target.id });
  }
}

type ForwardRow = [
  id: number,
  dueAt: number,
  attempts: number,
  subscriptionId: string,
  webhookId: string,
  eventType: string,
  body: Uint8Array,
  createdAt: number,
  traceContext: string | null,
];

/**
 * The claim of the receiver's destinations (scope `receiver`), one IMMEDIATE transaction: the destinations' claim
 * columns, their due rows in due order, the endpoint options applied (`decideTargetClaim`: paused, ordered heads,
 * in-flight caps, rate-limit send times), the picked rows read with their inbox event's bytes and webhook-id, then
 * leased, and each rate-limited destination's next send time moved. With `only`, the same over those sender
 * subscriptions (the rate-limited ones the sender's one-statement claim passes over).
 *
 * @example
 * ```ts
 * const claim = createSqliteTargetClaimer(ctx);
 * claim.immediate(claimPlan(16, { leaseMs: 30_000, workerId: "w1", scope: "receiver" }), Date.now());
 * claim.immediate(claimPlan(16, { leaseMs: 30_000, workerId: "w1" }), Date.now(), ["sub_1"]); // rate-limited subs
 * ```
 */
export function createSqliteTargetClaimer(
  ctx: SqliteContext,
): Database.Transaction<(plan: ClaimPlan, at: number, only?: readonly string[]) => ClaimedDelivery[]> {
  return ctx.db.transaction((plan: ClaimPlan, at: number, only?: readonly string[]): ClaimedDelivery[] => {
    const found = targetsAndDue(ctx, plan, at, only ?? null);
    if (found === null) return [];
    const { targets, candidates } = found;
    const byId = new Map(targets.map((t) => [t.id, t]));
    const present = new Set(candidates.map((c) => c.subscriptionId));
    const heads = new Map<string, number>();
    const inFlight = new Map<string, number>();
    for (const id of present) {
      const target = byId.get(id);
      if (target?.ordered === 1) heads.set(id, ctx.sql(HEAD_OF).pluck().get(id) as number);
      else if (target?.max_in_flight !== null)
        inFlight.set(id, ctx.sql(IN_FLIGHT_OF).pluck().get(id, at) as number);
    }
    const decision = decideTargetClaim(candidates, byId, heads, inFlight, plan, at);
    for (const row of decision.fail) ctx.sql(FAIL_DISABLED).run(at, DISABLED_REASON, at, at, row.id);
    if (decision.lease.length === 0) return [];
    const ids = JSON.stringify(decision.lease.map((row) => row.id));
    const picked = ctx.sql(LEASED_FORWARDS).raw(true).all(ids) as ForwardRow[];
    const leaseToken = randomUUID();
    const leaseUntil = at + plan.leaseMs;
    ctx.sql(LEASE_MANY).run(leaseUntil, plan.workerId, leaseToken, at, ids);
    for (const [id, next] of decision.nextSendAt) ctx.sql(SET_NEXT_SEND).run(Math.round(next), id);
    const targetOf = claimedSubscriptions(ctx.box, at);
    const read = (id: string) => ctx.sql(CLAIMED_DESTINATION).get(id) as ClaimedSubscriptionRow;
    const leaseExpiresAt = new Date(leaseUntil);
    return picked.map(
      ([id, dueAt, attempts, subscriptionId, webhookId, eventType, body, createdAt, trace]) => {
        const notBefore = decision.notBefore.get(id);
        return {
          id,
          leaseToken,
          attempt: attempts + 1,
          leaseExpiresAt,
          dueAt: new Date(dueAt),
          message: {
            id: webhookId,
            eventType,
            body,
            createdAt: new Date(createdAt),
            traceContext: traceCarrierOf(trace),
          },
          subscription: targetOf(subscriptionId, read),
          notBefore: notBefore === undefined || notBefore <= at ? null : new Date(notBefore),
        };
      },
    );
  });
}
