import type { PurgeOptions, PurgeResult } from "../api/store.js";
import { purgeLimits } from "../shared/purge.js";
import { mapPgError, type PgContext, transaction } from "./context.js";

/**
 * Readiness means a write can proceed: take (and at once release) the lock every insert and update takes. It waits
 * `lock_timeout` behind a table lock, and fails on a read-only standby after a failover.
 *
 * @example
 * ```ts
 * await pingPg(ctx); // throws StoreUnavailableError when a write could not proceed
 * ```
 */
export async function pingPg(ctx: PgContext): Promise<void> {
  await transaction(ctx, async (client) => {
    await client.query(
      `LOCK TABLE ${ctx.s}.inbox_events, ${ctx.s}.messages, ${ctx.s}.deliveries IN ROW EXCLUSIVE MODE`,
    );
  });
}

/**
 * One purge batch: old inbox events, and old messages none of whose deliveries is still pending or leased.
 *
 * @example
 * ```ts
 * const { more } = await purgePg(ctx, { before: Date.now() - 30 * 86_400_000 });
 * ```
 */
export async function purgePg(ctx: PgContext, options: PurgeOptions): Promise<PurgeResult> {
  const { before, batchSize } = purgeLimits(options);
  const inboxEvents = await deleted(
    ctx,
    `DELETE FROM ${ctx.s}.inbox_events WHERE seq IN
       (SELECT seq FROM ${ctx.s}.inbox_events i WHERE received_at < $1
         AND NOT EXISTS (SELECT 1 FROM ${ctx.s}.deliveries d WHERE d.message_id = 'in_' || i.seq
                         AND d.state IN ('pending', 'leased'))
         ORDER BY seq LIMIT $2)`,
    [before, batchSize],
  );
  // Deliveries and their attempts go with their message (statement triggers, migration 8).
  const messages = await deleted(
    ctx,
    `DELETE FROM ${ctx.s}.messages WHERE id IN
       (SELECT m.id FROM ${ctx.s}.messages m WHERE m.created_at < $1 AND NOT EXISTS
          (SELECT 1 FROM ${ctx.s}.deliveries d WHERE d.message_id = m.id AND d.state IN ('pending', 'leased'))
        ORDER BY m.id LIMIT $2)`,
    [before, batchSize],
  );
  return { inboxEvents, messages, more: inboxEvents === batchSize || messages === batchSize };
}

/** How many rows one DELETE removed; errors mapped. */
async function deleted(ctx: PgContext, text: string, values: unknown[]): Promise<number> {
  try {
    return (await ctx.pool.query(text, values)).rowCount ?? 0;
  } catch (error) {
    throw mapPgError(error);
  }
}
