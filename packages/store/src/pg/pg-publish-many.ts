import type { BatchEvent, PublishManyOptions, PublishResult, SqlClient } from "../api/outbox.js";
import { type BatchProblem, InvalidBatchError } from "../errors.js";
import { type BatchItem, batchResults, prepareBatch, type WrittenItem } from "../shared/prepare-batch.js";
import { sameEvent } from "../shared/prepare-event.js";
import { scopeSql } from "../shared/target-scope.js";
import { type PgContext, query, transaction } from "./context.js";
import { type StoredMessage, storedByKeySql } from "./outbox-sql.js";

/**
 * A batch in ONE statement: the messages from parallel arrays (their order kept by `ord`), a stored key skipped,
 * then every new message fanned out to the subscriptions that receive its type, counted per message, and one
 * notification when anything was queued. Params: ids, keys, bodies, event types, trace contexts, now, channel; with
 * `toApplications` ($8) each message's application id (NULL: every application's subscriptions; else only that
 * application's get a delivery, and the message names it).
 */
export const publishManySql = (s: string, toApplications = false) => `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::text[]${toApplications ? ", $8::text[]" : ""})
    WITH ORDINALITY AS i(id, idempotency_key, body, event_type, trace_context${toApplications ? ", application_id" : ""}, ord)
), msg AS (
  INSERT INTO ${s}.messages (id, idempotency_key, body, created_at, event_type, trace_context${toApplications ? ", application_id" : ""})
  SELECT id, idempotency_key, body, $6, event_type, trace_context${toApplications ? ", application_id" : ""} FROM input ORDER BY ord
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id, event_type${toApplications ? ", application_id" : ""}
), fan_out AS (
  INSERT INTO ${s}.deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT message_id, subscription_id, 'pending', $6, $6, $6 FROM (${fanOutSql(s, toApplications)}) AS pairs
  ORDER BY message_id, subscription_id
  RETURNING message_id
), counted AS (SELECT message_id, count(*)::int AS n FROM fan_out GROUP BY message_id),
notified AS (SELECT pg_notify($7, '') FROM (SELECT 1 FROM fan_out LIMIT 1) AS any_delivery)
SELECT msg.id, coalesce(counted.n, 0) AS deliveries, (SELECT count(*) FROM notified) AS notified
FROM msg LEFT JOIN counted ON counted.message_id = msg.id`;

/**
 * The (message, subscription) pairs of the fan-out: every enabled sender subscription that takes the message's type;
 * with `toApplications`, a message naming an application reaches only that application's subscriptions. The two cases
 * are two branches (no `OR` in one join condition, which no index serves: a group of 64 publishes to 100 applications
 * compared 6,400 pairs), the second through `subscriptions_application_idx`.
 */
function fanOutSql(s: string, toApplications: boolean): string {
  const takes = `${scopeSql("sub.id", "sender")} AND sub.enabled
      AND (sub.event_types IS NULL OR msg.event_type = ANY(sub.event_types))`;
  const toAll = `SELECT msg.id AS message_id, sub.id AS subscription_id FROM msg JOIN ${s}.subscriptions sub ON ${takes}`;
  if (!toApplications) return toAll;
  return `${toAll} WHERE msg.application_id IS NULL
    UNION ALL
    SELECT msg.id, sub.id FROM msg JOIN ${s}.subscriptions sub
      ON sub.application_id = msg.application_id AND ${takes}`;
}

type Written = WrittenItem;

/**
 * The PostgreSQL outbox's `publishMany`: every event checked first (`prepareBatch`), then one transaction (a
 * savepoint inside the caller's `tx`; for a batch without keys, the one statement alone) with ONE
 * insert-and-fan-out statement; keys stored before are read back and must name the same event, or the whole batch
 * rolls back with `InvalidBatchError`.
 *
 * @example
 * ```ts
 * const publishMany = pgBatchPublisher(ctx);
 * await publishMany([{ event: { id: 1, name: "Fern" } }, { event: { id: 2, name: "Moss" }, idempotencyKey: "k2" }]);
 * ```
 */
export function pgBatchPublisher(
  ctx: PgContext,
): (events: readonly BatchEvent[], options?: PublishManyOptions) => Promise<PublishResult[]> {
  const statement = publishManySql(ctx.s);
  return async (events, options = {}) => {
    const batch = prepareBatch(events, options);
    if (batch.items.length === 0) return [];
    const at = ctx.options.now();
    const write = async (client: SqlClient) => {
      const ids = batch.items.map(() => ctx.nextId());
      const params = [
        ids,
        batch.items.map((item) => item.key),
        batch.items.map((item) => Buffer.from(item.body)),
        batch.items.map((item) => item.eventType),
        batch.items.map((item) => item.traceContext),
        at,
        ctx.channels.outbox,
      ];
      const rows = await query<{ id: string; deliveries: number }>(ctx, statement, params, client);
      const fresh = new Map(rows.map((row) => [row.id, row.deliveries]));
      const written = ids.map((id) =>
        fresh.has(id)
          ? {
              id,
              deliveries: fresh.get(id) as number,
              createdAt: new Date(at),
              duplicate: false,
            }
          : undefined,
      );
      return stored(ctx, client, batch.items, written);
    };
    // Without keys nothing is read back, so the one statement is the whole write: atomic without BEGIN … COMMIT.
    const keyed = batch.items.some((item) => item.key !== null);
    const written = options.tx
      ? await underSavepoint(options.tx, write)
      : keyed
        ? await transaction(ctx, write)
        : await write(ctx.pool);
    return batchResults(batch, written);
  };
}

/** The items the statement skipped had a stored key: each answers with that message, if it is the same event. */
async function stored(
  ctx: PgContext,
  client: SqlClient,
  items: readonly BatchItem[],
  written: (Written | undefined)[],
): Promise<Written[]> {
  const skipped = items.filter((_, i) => written[i] === undefined);
  if (skipped.length === 0) return written as Written[];
  const rows = await query<StoredMessage>(
    ctx,
    storedByKeySql(ctx.s, "= ANY($1::text[])"),
    [skipped.map((item) => item.key)],
    client,
  );
  const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
  const problems: BatchProblem[] = [];
  const answers = items.map((item, i) => {
    const done = written[i];
    if (done) return done;
    const row = byKey.get(item.key as string);
    if (!row || !sameEvent({ eventType: row.event_type, body: row.body }, item)) {
      problems.push({
        index: item.index,
        code: "idempotency_conflict",
        message: "This idempotency key was already used for a different event; use a new key.",
      });
      return undefined;
    }
    return {
      id: row.id,
      deliveries: row.deliveries,
      createdAt: new Date(Number(row.created_at)),
      duplicate: true,
    };
  });
  if (problems.length > 0) throw new InvalidBatchError(problems);
  return answers as Written[];
}

/** Runs `work` on the caller's transaction under a savepoint, so a refused batch leaves the caller's work intact. */
async function underSavepoint<T>(tx: SqlClient, work: (client: SqlClient) => Promise<T>): Promise<T> {
  await tx.query("SAVEPOINT plant_store_publish_many");
  try {
    const result = await work(tx);
    await tx.query("RELEASE SAVEPOINT plant_store_publish_many");
    return result;
  } catch (error) {
    await tx.query("ROLLBACK TO SAVEPOINT plant_store_publish_many");
    throw error;
  }
}
