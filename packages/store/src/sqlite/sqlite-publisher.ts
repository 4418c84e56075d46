import type { Outbox } from "../api/outbox.js";
import { StoreInputError, storeClosedError } from "../errors.js";
import { applicationNotFound, scopedIdempotencyKey } from "../shared/application-rules.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { checkReplay, prepareEvent } from "../shared/prepare-event.js";
import type { MessageRow } from "../shared/rows.js";
import { scopeSql } from "../shared/target-scope.js";
import { checkIdempotencyKey, checkTraceContext } from "../shared/validate.js";
import { runSqlite, type SqliteContext } from "./context.js";

export type PublishItem = {
  /** The application published to as the caller named it (id or uid), `null` for all. */
  application: string | null;
  body: Uint8Array;
  eventType: string;
  key: string | null;
  traceContext: string | null;
  at: number;
};
/** The sender's subscriptions (never a receiver's destinations). */
const SUBSCRIPTIONS = scopeSql("id", "sender");
const FAN_OUT = `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT ?, id, 'pending', ?, ?, ? FROM subscriptions
  WHERE ${SUBSCRIPTIONS} AND enabled = 1 AND (event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?))
  ORDER BY id`;
/** The fan-out to one application's subscriptions, through subscriptions_application_idx. */
const FAN_OUT_APP = `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT ?, id, 'pending', ?, ?, ? FROM subscriptions
  WHERE application_id = ? AND ${SUBSCRIPTIONS} AND enabled = 1
    AND (event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?))
  ORDER BY id`;

/**
 * The id of the application a publish names, read in the publish's transaction: by id (`app_…`) or by uid (which
 * never starts with `app_`), each through its own unique index. `undefined` when there is none.
 */
function applicationIdOf(ctx: SqliteContext, application: string): string | undefined {
  const column = application.startsWith("app_") ? "SELECT id FROM applications WHERE id = ?" : UID_LOOKUP;
  return ctx.sql(column).pluck().get(application) as string | undefined;
}
const UID_LOOKUP = "SELECT id FROM applications WHERE uid = ?";

type Published =
  | { existing: MessageRow; deliveries: number; id?: undefined; missing?: undefined }
  | { existing: undefined; id: string; deliveries: number; missing?: undefined }
  /** The application named does not exist: nothing was written. */
  | { existing: undefined; id?: undefined; deliveries: 0; missing: string };

/**
 * One event of a commit, inside its transaction: the application named, a replayed key, or the message and its
 * fan-out. The operational webhooks are published through it in the transaction of the change they report.
 */
export function publishOne(
  ctx: SqliteContext,
  { application, body, eventType, key: given, traceContext, at }: PublishItem,
): Published {
  const applicationId = application === null ? null : applicationIdOf(ctx, application);
  if (applicationId === undefined)
    return { existing: undefined, deliveries: 0, missing: application as string };
  const key = scopedIdempotencyKey(given, applicationId);
  if (key !== null) {
    const existing = ctx.sql("SELECT * FROM messages WHERE idempotency_key = ?").get(key) as
      | MessageRow
      | undefined;
    // A replay answers like the original: its fan-out count, read through deliveries_message_idx.
    if (existing) {
      const n = ctx.sql("SELECT count(*) FROM deliveries WHERE message_id = ?").pluck().get(existing.id);
      return { existing, deliveries: n as number };
    }
  }
  const id = ctx.nextId();
  ctx
    .sql(
      `INSERT INTO messages (id, idempotency_key, event_type, body, created_at, trace_context, application_id)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, key, eventType, body, at, traceContext, applicationId);
  // Only the subscriptions that receive this type (event_types NULL = every type), of one application if given.
  const fanOut =
    applicationId === null
      ? ctx.sql(FAN_OUT).run(id, at, at, at, eventType)
      : ctx.sql(FAN_OUT_APP).run(id, at, at, at, applicationId, eventType);
  return { existing: undefined, id, deliveries: fanOut.changes };
}

/**
 * The outbox's publisher: a message and its fan-out (one delivery per enabled subscription that receives its type).
 * Publishes are group-committed like inbox writes (unless `groupCommit: false`): the calls of one event-loop turn
 * share ONE transaction and one fsync (synchronous=FULL: a publish is what the caller is told is stored). An
 * idempotency key used twice in one batch finds the first row, as it would one turn later.
 *
 * @example
 * ```ts
 * const publisher = createSqlitePublisher(ctx);
 * await publisher.publish({ id: 1, name: "Fern" });
 * ```
 */
export function createSqlitePublisher(ctx: SqliteContext) {
  const publishBatch = ctx.db.transaction((items: PublishItem[]) =>
    items.map((item) => publishOne(ctx, item)),
  );
  const commit = (items: PublishItem[]): Published[] => {
    const results = publishBatch.immediate(items);
    if (results.some((r) => r.existing === undefined && r.deliveries > 0)) ctx.outboxWork.emit();
    return results;
  };
  const committer = new GroupCommitter((items: PublishItem[]) => runSqlite(ctx, () => commit(items)), {
    maxBatch: ctx.options.maxBatchSize,
  });

  const publish: Outbox["publish"] = async (event, options = {}) => {
    if (ctx.closed.aborted) throw storeClosedError();
    if (options.tx !== undefined) {
      throw new StoreInputError("invalid_option", "publish({ tx }) needs the PostgreSQL backend.");
    }
    const key = options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey);
    const prepared = prepareEvent(event, options);
    const item: PublishItem = {
      application: options.application ?? null,
      key,
      traceContext: checkTraceContext(options.traceContext),
      body: prepared.body,
      eventType: prepared.eventType,
      at: ctx.options.now(),
    };
    const result = ctx.options.groupCommit
      ? await committer.submit(item)
      : await runSqlite(ctx, () => commit([item])[0] as Published);
    if (result.missing !== undefined) throw applicationNotFound(result.missing);
    if (result.existing) {
      checkReplay(result.existing, prepared);
      return {
        messageId: result.existing.id,
        duplicate: true,
        deliveries: result.deliveries,
        createdAt: new Date(result.existing.created_at),
      };
    }
    return {
      messageId: result.id,
      duplicate: false,
      deliveries: result.deliveries,
      createdAt: new Date(item.at),
    };
  };
  return { publish, drain: () => committer.drain() };
}
