import type { Outbox } from "../api/outbox.js";
import { StoreInputError, storeClosedError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { checkReplay, prepareEvent } from "../shared/prepare-event.js";
import type { MessageRow } from "../shared/rows.js";
import { checkIdempotencyKey, checkTraceContext } from "../shared/validate.js";
import { runSqlite, type SqliteContext } from "./context.js";

type PublishItem = {
  body: Uint8Array;
  eventType: string;
  key: string | null;
  traceContext: string | null;
  at: number;
};
type Published =
  | { existing: MessageRow; deliveries: number; id?: undefined }
  | { existing: undefined; id: string; deliveries: number };

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
  const publishOne = ({ body, eventType, key, traceContext, at }: PublishItem): Published => {
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
        "INSERT INTO messages (id, idempotency_key, event_type, body, created_at, trace_context) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(id, key, eventType, body, at, traceContext);
    // Only the subscriptions that receive this type (event_types NULL = every type).
    const fanOut = ctx
      .sql(
        `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
         SELECT ?, id, 'pending', ?, ?, ? FROM subscriptions
         WHERE id >= 'sub_' AND id < 'sub\`' AND enabled = 1 AND (event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?))
         ORDER BY id`,
      )
      .run(id, at, at, at, eventType);
    return { existing: undefined, id, deliveries: fanOut.changes };
  };
  const publishBatch = ctx.db.transaction((items: PublishItem[]) => items.map(publishOne));
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
      key,
      traceContext: checkTraceContext(options.traceContext),
      body: prepared.body,
      eventType: prepared.eventType,
      at: ctx.options.now(),
    };
    const result = ctx.options.groupCommit
      ? await committer.submit(item)
      : await runSqlite(ctx, () => commit([item])[0] as Published);
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
