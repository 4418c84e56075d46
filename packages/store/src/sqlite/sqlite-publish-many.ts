import type { Outbox } from "../api/outbox.js";
import { type BatchProblem, InvalidBatchError, StoreInputError, storeClosedError } from "../errors.js";
import { type BatchItem, batchResults, prepareBatch, type WrittenItem } from "../shared/prepare-batch.js";
import { sameEvent } from "../shared/prepare-event.js";
import type { MessageRow } from "../shared/rows.js";
import { scopeSql } from "../shared/target-scope.js";
import { runSqlite, type SqliteContext } from "./context.js";

type Written = WrittenItem;

/** Every new message of the batch (ids as a JSON array) fanned out in ONE statement; one row back per delivery. */
const FAN_OUT = `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
SELECT m.id, s.id, 'pending', ?, ?, ? FROM messages m JOIN subscriptions s
  ON ${scopeSql("s.id", "sender")} AND s.enabled = 1 AND (s.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(s.event_types) WHERE value = m.event_type))
WHERE m.id IN (SELECT value FROM json_each(?))
ORDER BY m.id, s.id
RETURNING message_id`;

/**
 * The SQLite outbox's `publishMany`: every event checked first (`prepareBatch`), then one IMMEDIATE transaction
 * that inserts the messages, answers a stored key with its message (the same event, or the whole batch rolls back
 * with `InvalidBatchError`), and fans every new message out in one statement.
 *
 * @example
 * ```ts
 * const publishMany = createSqliteBatchPublisher(ctx);
 * await publishMany([{ event: { id: 1, name: "Fern" } }, { event: { id: 2, name: "Moss" }, idempotencyKey: "k2" }]);
 * ```
 */
export function createSqliteBatchPublisher(ctx: SqliteContext): Outbox["publishMany"] {
  const write = ctx.db.transaction((items: readonly BatchItem[], at: number): Written[] => {
    const problems: BatchProblem[] = [];
    const fresh: string[] = [];
    const written = items.map((item) => {
      const existing = item.key === null ? undefined : storedMessage(ctx, item.key);
      if (existing) {
        if (!sameEvent({ eventType: existing.event_type, body: existing.body }, item)) {
          problems.push({
            index: item.index,
            code: "idempotency_conflict",
            message: "This idempotency key was already used for a different event; use a new key.",
          });
        }
        const deliveries = ctx
          .sql("SELECT count(*) FROM deliveries WHERE message_id = ?")
          .pluck()
          .get(existing.id);
        return {
          id: existing.id,
          deliveries: deliveries as number,
          createdAt: new Date(existing.created_at),
          duplicate: true,
        };
      }
      const id = ctx.nextId();
      ctx
        .sql(
          "INSERT INTO messages (id, idempotency_key, event_type, body, created_at, trace_context) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(id, item.key, item.eventType, item.body, at, item.traceContext);
      fresh.push(id);
      return { id, deliveries: 0, createdAt: new Date(at), duplicate: false };
    });
    if (problems.length > 0) throw new InvalidBatchError(problems);
    const counts = new Map<string, number>();
    for (const id of ctx.sql(FAN_OUT).pluck().all(at, at, at, JSON.stringify(fresh)) as string[]) {
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const w of written) if (!w.duplicate) w.deliveries = counts.get(w.id) ?? 0;
    return written;
  });
  return async (events, options = {}) => {
    if (ctx.closed.aborted) throw storeClosedError();
    if (options.tx !== undefined) {
      throw new StoreInputError("invalid_option", "publishMany({ tx }) needs the PostgreSQL backend.");
    }
    const batch = prepareBatch(events, options);
    if (batch.items.length === 0) return [];
    const written = await runSqlite(ctx, () => {
      const result = write.immediate(batch.items, ctx.options.now());
      if (result.some((w) => !w.duplicate && w.deliveries > 0)) ctx.outboxWork.emit();
      return result;
    });
    return batchResults(batch, written);
  };
}

function storedMessage(ctx: SqliteContext, key: string): MessageRow | undefined {
  return ctx.sql("SELECT * FROM messages WHERE idempotency_key = ?").get(key) as MessageRow | undefined;
}
