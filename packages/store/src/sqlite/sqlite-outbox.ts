import type { ClaimedDelivery, Outbox } from "../api/outbox.js";
import { type ClaimPlan, claimPlan } from "../shared/claim-plan.js";
import { outcomeMethods } from "../shared/outcomes.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type MessageRow,
  toAttempt,
  toDelivery,
  toMessage,
} from "../shared/rows.js";
import { toMillis } from "../shared/time.js";
import { heldClaimFailure, restAfterLimited } from "../shared/two-part-claim.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { RATE_LIMITED } from "./outbox-sql.js";
import { createSqliteClaimer } from "./sqlite-claimer.js";
import { sqliteListDeliveries, sqliteOutboxStats } from "./sqlite-outbox-reads.js";
import { createSqliteOutcomeRecorder } from "./sqlite-outcomes.js";
import { createSqliteBatchPublisher } from "./sqlite-publish-many.js";
import { createSqlitePublisher } from "./sqlite-publisher.js";
import { sqliteRedelivery } from "./sqlite-redelivery.js";
import { createSqliteTargetClaimer } from "./sqlite-target-claimer.js";

/**
 * The sender's claim: the one-transaction claim of due rows alone while no subscription has a rate limit
 * (`ctx.rateGate`); else the options claim of the limited subscriptions' rows first (`decideTargetClaim`), then that
 * claim of the rest with them skipped (`restAfterLimited`).
 */
function senderClaimer(
  ctx: SqliteContext,
  claim: ReturnType<typeof createSqliteClaimer>,
  claimTargets: ReturnType<typeof createSqliteTargetClaimer>,
): (plan: ClaimPlan) => ClaimedDelivery[] {
  const rateLimited = ctx.sql(RATE_LIMITED).pluck();
  const held = heldClaimFailure();
  return (plan) => {
    held.rethrow();
    const gate = ctx.rateGate;
    if (gate.stale()) gate.read(rateLimited.all() as string[]);
    if (!gate.open) return claim.immediate(plan, ctx.options.now());
    const limited = gate.ids;
    const claimed = claimTargets.immediate(plan, ctx.options.now(), limited);
    const rest = restAfterLimited(plan, claimed.length, limited);
    if (rest === null) return claimed;
    try {
      for (const delivery of claim.immediate(rest, ctx.options.now())) claimed.push(delivery);
    } catch (error) {
      return held.keep(claimed, error);
    }
    return claimed;
  };
}

/**
 * SQLite outbox, in stages over one connection: the publisher (group-committed publishes), the claimer (one
 * IMMEDIATE transaction per claim), the outcome recorder (a turn's outcomes, and a 410's disable, in one
 * transaction), resend and recover (`sqlite-redelivery.ts`) and the reads.
 *
 * @example
 * ```ts
 * const outbox = createSqliteOutbox(ctx);
 * await outbox.publish({ id: 1, name: "Fern" });
 * ```
 */
export function createSqliteOutbox(ctx: SqliteContext): Outbox & { drain(): Promise<void> } {
  const now = () => ctx.options.now();
  let claimGeneration = 0;
  const publisher = createSqlitePublisher(ctx);
  const claim = createSqliteClaimer(ctx);
  const claimTargets = createSqliteTargetClaimer(ctx);
  const claimSender = senderClaimer(ctx, claim, claimTargets);
  const recorder = createSqliteOutcomeRecorder(ctx);
  const { resend, recover } = sqliteRedelivery(ctx);
  const read = <T>(run: () => T) => runSqlite(ctx, run);
  return {
    publish: publisher.publish,
    publishMany: createSqliteBatchPublisher(ctx),
    getMessage: (id) =>
      read(() => {
        const row = ctx.sql("SELECT * FROM messages WHERE id = ?").get(id) as MessageRow | undefined;
        return row ? toMessage(row) : null;
      }),
    claim: (limit, options) =>
      read(() => {
        const plan = claimPlan(limit, options);
        claimGeneration = ctx.outboxWork.generation;
        if (plan.scope === "receiver") return ctx.relaxed(() => claimTargets.immediate(plan, now()));
        return ctx.relaxed(() => claimSender(plan));
      }),
    ...outcomeMethods(recorder, now, () => ctx.outboxWork.emit()),
    drain: async () => {
      await Promise.all([publisher.drain(), recorder.drain()]);
    },
    resend: (id) =>
      read(() => {
        const delivery = resend.immediate(id, now());
        ctx.outboxWork.emit();
        return delivery;
      }),
    recover: (subscriptionId, since) =>
      read(() => {
        const n = recover.immediate(subscriptionId, toMillis(since), now());
        if (n > 0) ctx.outboxWork.emit();
        return n;
      }),
    getDelivery: (id) =>
      read(() => {
        const row = ctx.sql("SELECT * FROM deliveries WHERE id = ?").get(id) as DeliveryRow | undefined;
        return row ? toDelivery(row) : null;
      }),
    listDeliveries: (options) => read(() => sqliteListDeliveries(ctx, options)),
    listAttempts: (deliveryId) =>
      read(() =>
        (
          ctx
            .sql("SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY id")
            .all(deliveryId) as AttemptRow[]
        ).map(toAttempt),
      ),
    stats: () => read(() => sqliteOutboxStats(ctx, now())),
    waitForWork: (signal, timeoutMs = 1000) =>
      ctx.outboxWork.wait({ signal, timeoutMs, since: claimGeneration }),
  };
}
