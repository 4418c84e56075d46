import type { Delivery, DeliveryState } from "../api/outbox.js";
import { checkRecoverable, checkResendable } from "../shared/redelivery-guards.js";
import { type DeliveryRow, toDelivery } from "../shared/rows.js";
import { toMillis } from "../shared/time.js";
import { type PgContext, query, transaction } from "./context.js";

/**
 * The PostgreSQL outbox's `resend`: under the delivery's row lock, checks it may be resent (shared guards), makes it
 * due now with a fresh retry schedule and wakes the workers at commit.
 *
 * @example
 * ```ts
 * await pgResend(ctx, 42); // the delivery, pending again
 * ```
 */
export function pgResend(ctx: PgContext, id: number): Promise<Delivery> {
  const { s } = ctx;
  return transaction(ctx, async (client) => {
    const [current] = await query<{ state: DeliveryState; enabled: boolean }>(
      ctx,
      `SELECT d.state, sub.enabled FROM ${s}.deliveries d JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
       WHERE d.id = $1 FOR UPDATE OF d`,
      [id],
      client,
    );
    checkResendable(id, current);
    const at = ctx.options.now();
    const [row] = await query<DeliveryRow>(
      ctx,
      `UPDATE ${s}.deliveries SET state = 'pending', due_at = $2, attempts = 0, finished_at = NULL, updated_at = $2
       WHERE id = $1 RETURNING *`,
      [id, at],
      client,
    );
    await query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox], client);
    return toDelivery(row as DeliveryRow);
  });
}

/**
 * The PostgreSQL outbox's `recover`: with the subscription share-locked and checked (shared guards), its failed
 * deliveries created since `since` become due now; returns how many.
 *
 * @example
 * ```ts
 * await pgRecover(ctx, "sub_1", Date.now() - 3600_000); // 12
 * ```
 */
export function pgRecover(ctx: PgContext, subscriptionId: string, since: Date | number): Promise<number> {
  const { s } = ctx;
  return transaction(
    ctx,
    async (client) => {
      const [sub] = await query<{ enabled: boolean }>(
        ctx,
        `SELECT enabled FROM ${s}.subscriptions WHERE id = $1 FOR SHARE`,
        [subscriptionId],
        client,
      );
      checkRecoverable(subscriptionId, sub?.enabled);
      const at = ctx.options.now();
      const rows = await query(
        ctx,
        `UPDATE ${s}.deliveries SET state = 'pending', due_at = $2, attempts = 0, finished_at = NULL, updated_at = $2
         WHERE subscription_id = $1 AND state = 'failed' AND created_at >= $3 RETURNING id`,
        [subscriptionId, at, toMillis(since)],
        client,
      );
      if (rows.length > 0) await query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox], client);
      return rows.length;
    },
    { bulk: true },
  );
}
