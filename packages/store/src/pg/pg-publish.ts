import type { PublishOptions, PublishResult } from "../api/outbox.js";
import { StoreConflictError } from "../errors.js";
import { applicationNotFound, scopedIdempotencyKey } from "../shared/application-rules.js";
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
  const toApplication = publishSql(ctx.s, true);
  return async (event, options = {}) => {
    const applicationId =
      options.application === undefined ? null : await pgApplicationId(ctx, options.application, options);
    const key = scopedIdempotencyKey(
      options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey),
      applicationId,
    );
    const prepared = prepareEvent(event, options);
    const traceContext = checkTraceContext(options.traceContext);
    const at = ctx.options.now();
    const values = [
      ctx.nextId(),
      key,
      prepared.body,
      at,
      ctx.channels.outbox,
      prepared.eventType,
      traceContext,
    ];
    if (applicationId !== null) values.push(applicationId);
    const [row] = await query<{ id: string | null; deliveries: number }>(
      ctx,
      applicationId === null ? statement : toApplication,
      values,
      options.tx,
    );
    if (row?.id)
      return { messageId: row.id, duplicate: false, deliveries: row.deliveries, createdAt: new Date(at) };
    return replayed(ctx, key, prepared, options);
  };
}

/** The id of the application a publish names (by id or uid); `not_found` when there is none. */
async function pgApplicationId(
  ctx: PgContext,
  application: string,
  options: PublishOptions,
): Promise<string> {
  const [found] = await query<{ id: string }>(
    ctx,
    // By id (`app_…`) or by uid (which never starts with `app_`): each through its own unique index.
    `SELECT id FROM ${ctx.s}.applications WHERE ${application.startsWith("app_") ? "id" : "uid"} = $1`,
    [application],
    options.tx,
  );
  if (!found) throw applicationNotFound(application);
  return found.id;
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
