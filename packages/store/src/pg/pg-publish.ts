import type { PublishOptions, PublishResult } from "../api/outbox.js";
import { StoreConflictError } from "../errors.js";
import { checkReplay, prepareEvent } from "../shared/prepare-event.js";
import type { MessageRow } from "../shared/rows.js";
import { checkIdempotencyKey, checkTraceContext } from "../shared/validate.js";
import { type PgContext, query } from "./context.js";
import { publishSql } from "./outbox-sql.js";

/**
 * The PostgreSQL outbox's `publish`: ONE statement inserts the message and fans it out (`publishSql`); a replayed
 * idempotency key answers like the original call.
 *
 * @example
 * ```ts
 * const publish = pgPublisher(ctx);
 * await publish({ id: 1, name: "Fern" }, { tx: client }); // inside the caller's BEGIN … COMMIT
 * ```
 */
export function pgPublisher(
  ctx: PgContext,
): (event: unknown, options?: PublishOptions) => Promise<PublishResult> {
  const statement = publishSql(ctx.s);
  return async (event, options = {}) => {
    const key = options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey);
    const prepared = prepareEvent(event, options);
    const traceContext = checkTraceContext(options.traceContext);
    const at = ctx.options.now();
    const [row] = await query<{ id: string | null; deliveries: number }>(
      ctx,
      statement,
      [ctx.nextId(), key, prepared.body, at, ctx.channels.outbox, prepared.eventType, traceContext],
      options.tx,
    );
    if (row?.id)
      return { messageId: row.id, duplicate: false, deliveries: row.deliveries, createdAt: new Date(at) };
    return replayed(ctx, key, prepared, options);
  };
}

/** A replay answers like the original: its fan-out count, read through deliveries_message_idx. */
async function replayed(
  ctx: PgContext,
  key: string | null,
  prepared: ReturnType<typeof prepareEvent>,
  options: PublishOptions,
): Promise<PublishResult> {
  const { s } = ctx;
  const [existing] = await query<MessageRow & { deliveries: number }>(
    ctx,
    `SELECT m.*, (SELECT count(*)::int FROM ${s}.deliveries d WHERE d.message_id = m.id) AS deliveries
     FROM ${s}.messages m WHERE m.idempotency_key = $1`,
    [key],
    options.tx,
  );
  if (!existing) {
    throw new StoreConflictError(
      "idempotency_conflict",
      "This idempotency key was already used for a different event; use a new key.",
    );
  }
  checkReplay(existing, prepared);
  return {
    messageId: existing.id,
    duplicate: true,
    deliveries: existing.deliveries,
    createdAt: new Date(Number(existing.created_at)),
  };
}
