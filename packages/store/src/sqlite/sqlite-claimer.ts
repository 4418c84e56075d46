import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import type { ClaimedDelivery } from "../api/outbox.js";
import { type ClaimPlan, pickDue } from "../shared/claim-plan.js";
import { type ClaimedSubscriptionRow, claimedSubscriptions } from "../shared/claimed-subscription.js";
import { DISABLED_REASON } from "../shared/outcomes.js";
import { traceCarrierOf } from "../shared/rows.js";
import type { SqliteContext } from "./context.js";
import { CLAIM_DUE, CLAIMED_SUBSCRIPTION, FAIL_DISABLED, LEASE_MANY } from "./outbox-sql.js";

/** A row of `CLAIM_DUE`, read raw: an array is cheaper for better-sqlite3 to build than an object per row. */
type DueRow = [
  id: number,
  dueAt: number,
  attempts: number,
  subscriptionId: string,
  messageId: string,
  eventType: string,
  body: Uint8Array,
  createdAt: number,
  enabled: number,
  traceContext: string | null,
  limited: number,
];
const SUBSCRIPTION = 3;
const ENABLED = 8;
const LIMITED = 10;

/**
 * The outbox's claimer: one IMMEDIATE transaction (SQLite has one writer, so no other connection can take the same
 * rows in between) of three statements whatever the batch: the due rows with their messages in due order, one
 * UPDATE leasing the picked ones, and one read of each subscription in the claim (its secrets opened once). Rows of
 * a disabled subscription (a lease that expired or was released after the disable) are failed, never leased; those
 * of a rate-limited one are passed over (the options claim takes them).
 *
 * @example
 * ```ts
 * const claim = createSqliteClaimer(ctx);
 * const claimed = claim.immediate(claimPlan(64, { leaseMs: 30_000, workerId: "w1" }), Date.now());
 * ```
 */
export function createSqliteClaimer(
  ctx: SqliteContext,
): Database.Transaction<(plan: ClaimPlan, at: number) => ClaimedDelivery[]> {
  const claimDue = ctx.sql(CLAIM_DUE).raw(true);
  return ctx.db.transaction((plan: ClaimPlan, at: number): ClaimedDelivery[] => {
    const scanned = claimDue.all(at, JSON.stringify(plan.skip), plan.scan) as DueRow[];
    let enabled = scanned;
    // A rate-limited subscription's rows are the options claim's (`createSqliteTargetClaimer` with its ids).
    if (scanned.some((row) => row[ENABLED] !== 1 || row[LIMITED] !== 0)) {
      for (const row of scanned) {
        if (row[ENABLED] !== 1) ctx.sql(FAIL_DISABLED).run(at, DISABLED_REASON, at, at, row[0]);
      }
      enabled = scanned.filter((row) => row[ENABLED] === 1 && row[LIMITED] === 0);
    }
    const due = pickDue(enabled, plan, (row) => row[SUBSCRIPTION]);
    if (due.length === 0) return [];
    const leaseToken = randomUUID();
    const leaseUntil = at + plan.leaseMs;
    const leaseExpiresAt = new Date(leaseUntil);
    ctx
      .sql(LEASE_MANY)
      .run(leaseUntil, plan.workerId, leaseToken, at, JSON.stringify(due.map((row) => row[0])));
    const subscriptionOf = claimedSubscriptions(ctx.box, at);
    const readSubscription = (id: string) => ctx.sql(CLAIMED_SUBSCRIPTION).get(id) as ClaimedSubscriptionRow;
    // Pushed, not mapped: the worker takes this array, and `push` keeps its V8 array map stable.
    const claimed: ClaimedDelivery[] = [];
    for (const [id, dueAt, attempts, subscriptionId, messageId, eventType, body, createdAt, , trace] of due) {
      claimed.push({
        id,
        leaseToken,
        attempt: attempts + 1,
        leaseExpiresAt,
        dueAt: new Date(dueAt),
        message: {
          id: messageId,
          eventType,
          body,
          createdAt: new Date(createdAt),
          traceContext: traceCarrierOf(trace),
        },
        subscription: subscriptionOf(subscriptionId, readSubscription),
        notBefore: null,
      });
    }
    return claimed;
  });
}
