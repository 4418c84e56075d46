import { setTimeout as sleep } from "node:timers/promises";
import type { Outbox } from "../api/outbox.js";
import { outcomeMethods } from "../shared/outcomes.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type MessageRow,
  toAttempt,
  toDelivery,
  toMessage,
} from "../shared/rows.js";
import { type PgContext, query } from "./context.js";
import { type PgClaimState, pgClaimer } from "./pg-claim.js";
import { pgListDeliveries, pgOutboxStats } from "./pg-outbox-reads.js";
import { createPgOutcomeRecorder } from "./pg-outcomes.js";
import { pgPublisher } from "./pg-publish.js";
import { pgBatchPublisher } from "./pg-publish-many.js";
import { pgRecover, pgResend } from "./pg-redelivery.js";

/**
 * PostgreSQL outbox, in stages over one pool: the publisher (`pg-publish.ts`: insert and fan out in one
 * statement), the claimer (`pg-claim.ts`: `FOR UPDATE SKIP LOCKED` and lease in one statement), the outcome
 * recorder (`pg-outcomes.ts`: a turn's outcomes, attempt rows, streaks and a 410's disable in one statement), resend
 * and recover (`pg-redelivery.ts`) and the reads.
 *
 * @example
 * ```ts
 * const outbox = createPgOutbox(ctx);
 * await outbox.publish(event, { tx: client }); // inside the caller's BEGIN … COMMIT
 * ```
 */
export function createPgOutbox(ctx: PgContext): Outbox & { drain(): Promise<void> } {
  const { s } = ctx;
  const state: PgClaimState = { claimGeneration: 0, claimsSinceCompaction: 0 };
  const recorder = createPgOutcomeRecorder(ctx);
  const notify = () => query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox]);
  const publisher = pgPublisher(ctx);
  return {
    publish: publisher.publish,
    publishMany: pgBatchPublisher(ctx),
    async getMessage(id) {
      const [row] = await query<MessageRow>(ctx, `SELECT * FROM ${s}.messages WHERE id = $1`, [id]);
      return row ? toMessage(row) : null;
    },
    claim: pgClaimer(ctx, state),
    ...outcomeMethods(recorder, () => ctx.options.now(), notify),
    drain: async () => {
      await Promise.all([publisher.drain(), recorder.drain()]);
    },
    resend: (id) => pgResend(ctx, id),
    recover: (subscriptionId, since) => pgRecover(ctx, subscriptionId, since),
    async getDelivery(id) {
      const [row] = await query<DeliveryRow>(ctx, `SELECT * FROM ${s}.deliveries WHERE id = $1`, [id]);
      return row ? toDelivery(row) : null;
    },
    listDeliveries: (options) => pgListDeliveries(ctx, options),
    async listAttempts(deliveryId) {
      const rows = await query<AttemptRow>(
        ctx,
        `SELECT * FROM ${s}.delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
        [deliveryId],
      );
      return rows.map(toAttempt);
    },
    stats: () => pgOutboxStats(ctx),
    waitForWork: (signal, timeoutMs = 1000) => pgWaitForWork(ctx, state, signal, timeoutMs),
  };
}

/** Resolves once new work may exist (LISTEN/NOTIFY from any process), `false` after `timeoutMs` or on abort. */
async function pgWaitForWork(
  ctx: PgContext,
  state: PgClaimState,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<boolean> {
  const since = state.claimGeneration;
  const deadline = Date.now() + timeoutMs;
  // LISTEN starts on first use; do not wait for it longer than the caller would wait anyway.
  await Promise.race([
    ctx.listener.start().catch(() => {}),
    sleep(timeoutMs, undefined, { signal, ref: false }).catch(() => {}),
  ]);
  if (ctx.closed.aborted) return false;
  return ctx.outboxWork.wait({ signal, timeoutMs: Math.max(0, deadline - Date.now()), since });
}
