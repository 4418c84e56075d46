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
  PENDING_AMONG_NEWEST,
  SET_NEXT_SEND,
  START_FORWARD_CURSOR,
  TAKE_DELIVERIES,
  TAKE_MESSAGES,
  TAKE_TYPED_WINDOW_END,
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
  if (only === null) candidates.push(...takeForwards(ctx, targets, skip, plan.limit));
  return candidates.length === 0 ? null : { targets, candidates };
}

/** The most inbox events a destination taking some types looks at in one claim (decision 45). */
const TYPED_LOOK_AHEAD = 4096;

/**
 * Decision 45: a destination's pending forwards are the inbox events after its cursor (`forward_seq`) of its types;
 * nothing is written for them at ingest. Each destination this claim may serve (not skipped: not paused, not a
 * consumer unless it is the claim's target, not rate-limited past the horizon) whose cursor is behind takes the next
 * events of its types, as many as the claim's limit less those of its newest rows still pending (so a slow
 * destination's rows stay bounded): their message and delivery rows are created in the claim's transaction, in seq
 * order, and its cursor moves past the events looked at. Returns the new rows, which join the candidates.
 */
function takeForwards(
  ctx: SqliteContext,
  targets: readonly TargetClaimRow[],
  skip: readonly string[],
  limit: number,
): DueCandidate[] {
  const taken: DueCandidate[] = [];
  let last: number | undefined;
  for (const target of targets) {
    if (skip.includes(target.id)) continue;
    last ??= ctx.sql(LAST_INBOX_SEQ).pluck().get() as number;
    const cursor = target.forward_seq ?? (ctx.sql(START_FORWARD_CURSOR).pluck().get(target.id) as number);
    if (cursor >= last) continue;
    const id = target.id;
    const n = limit - (ctx.sql(PENDING_AMONG_NEWEST).pluck().get({ id, limit }) as number);
    if (n <= 0) continue;
    const types = target.event_types ?? null;
    const to = (
      types === null
        ? ctx.sql(TAKE_WINDOW_END).pluck().get({ cursor, n })
        : ctx.sql(TAKE_TYPED_WINDOW_END).pluck().get({ cursor, n, types, look: TYPED_LOOK_AHEAD })
    ) as number;
    ctx.sql(TAKE_MESSAGES).run({ cursor, to, types });
    const inserted = ctx.sql(TAKE_DELIVERIES).run({ id, cursor, to, types });
    ctx.sql(MOVE_FORWARD_CURSOR).run(to, id);
    // One statement under the write lock: AUTOINCREMENT gives its rows consecutive ids, the last one reported.
    const first = Number(inserted.lastInsertRowid) - inserted.changes + 1;
    for (let i = 0; i < inserted.changes; i++) taken.push({ id: first + i, subscriptionId: id });
  }
  return taken;
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
