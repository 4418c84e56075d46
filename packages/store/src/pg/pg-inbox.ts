import type {
  Inbox,
  InboxEvent,
  InboxListOptions,
  InboxRecordInput,
  InboxRecordResult,
  Page,
} from "../api/inbox.js";
import { storeClosedError } from "../errors.js";
import { fitBytes } from "../shared/cursor.js";
import { followInbox, type InboxFollowSource } from "../shared/follow-inbox.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { headersJson } from "../shared/headers.js";
import { inboxListQuery, inboxPage, processedCondition } from "../shared/inbox-list.js";
import { pendingInboxRow, processedAt } from "../shared/inbox-record.js";
import { type InboxRow, type PendingInboxRow, storedInboxEvent, toInboxEvent } from "../shared/rows.js";
import { scopeSql } from "../shared/target-scope.js";
import { type PgContext, query } from "./context.js";

/** The inbox plus `drain()`, which `close()` awaits. */
export interface PgInbox extends Omit<Inbox, "consume"> {
  drain(): Promise<void>;
}

/**
 * PostgreSQL inbox. Dedup across instances is the unique webhook_id with
 * `ON CONFLICT DO NOTHING RETURNING`: no row back means another writer got there first. Group
 * commit inserts a batch with one statement (one round trip, one WAL flush); each insert NOTIFYs
 * its seq at commit for live streams.
 *
 * @example
 * ```ts
 * const r = await createPgInbox(ctx).record({ webhookId: "msg_1", body: "{}" });
 * ```
 */
export function createPgInbox(ctx: PgContext): PgInbox {
  const plain = insertSql(ctx.s);
  const forwarding = insertForwardingSql(ctx.s);
  const anyDestination = `SELECT EXISTS (SELECT 1 FROM ${ctx.s}.subscriptions sub WHERE ${DESTINATIONS}) AS any`;
  const write = async (batch: PendingInboxRow[]) => {
    if (ctx.forwardGate.stale()) {
      const [row] = await query<{ any: boolean }>(ctx, anyDestination);
      ctx.forwardGate.set(row?.any === true);
    }
    const forwards = ctx.forwardGate.open;
    return insertEvents(ctx, forwards ? forwarding : plain, batch, forwards);
  };
  // A few batches in flight keep the pool busy while one waits for its commit.
  const committer = new GroupCommitter(write, { maxBatch: ctx.options.maxBatchSize, maxInFlight: 4 });
  return {
    async record(input: InboxRecordInput) {
      if (ctx.closed.aborted) throw storeClosedError();
      const row = pendingInboxRow(input, ctx.options);
      if (!ctx.options.groupCommit) return (await write([row]))[0] as InboxRecordResult;
      return committer.submit(row);
    },
    get: (webhookId) => getEvent(ctx, webhookId),
    list: (options = {}) => listEvents(ctx, options),
    stream: (options) => streamEvents(ctx, options),
    markProcessed: (webhookId, at) => markProcessed(ctx, webhookId, at),
    count: (options = {}) => countEvents(ctx, options.processed),
    drain: () => committer.drain(),
  };
}

const insertSql = (s: string) => `
WITH ins AS (
  INSERT INTO ${s}.inbox_events (webhook_id, body, headers, received_at, event_type)
  SELECT * FROM unnest($1::text[], $2::bytea[], $3::jsonb[], $4::bigint[], $6::text[])
  ON CONFLICT (webhook_id) DO NOTHING
  RETURNING seq, webhook_id
)
SELECT seq, webhook_id, pg_notify($5, seq::text) FROM ins`;

/** The destinations' id range (`dst_…`, shared/target-scope.ts). */
const DESTINATIONS = scopeSql("sub.id", "receiver");

/**
 * `insertSql` with the batch's forwards in the same statement (one transaction): for each new event that some
 * destination takes, a message without a body of its own (its id `in_<seq>`, shared/forward-gate.ts, and
 * `inbox_seq` naming the event) and one pending delivery per such destination; the outbox's workers are notified at
 * commit when one of those destinations is not paused (a claim skips a paused one's forwards; resume notifies). A duplicate inserts nothing, so it creates no forward. Params: those of `insertSql`, then the outbox channel.
 */
const insertForwardingSql = (s: string) => `
WITH ins AS (
  INSERT INTO ${s}.inbox_events (webhook_id, body, headers, received_at, event_type)
  SELECT * FROM unnest($1::text[], $2::bytea[], $3::jsonb[], $4::bigint[], $6::text[])
  ON CONFLICT (webhook_id) DO NOTHING
  RETURNING seq, webhook_id, event_type, received_at
), msg AS (
  INSERT INTO ${s}.messages (id, body, created_at, event_type, inbox_seq)
  SELECT 'in_' || ins.seq, '\\x'::bytea, ins.received_at, ins.event_type, ins.seq FROM ins
  WHERE EXISTS (SELECT 1 FROM ${s}.subscriptions sub
                WHERE ${DESTINATIONS} AND (sub.event_types IS NULL OR ins.event_type = ANY(sub.event_types)))
  ORDER BY ins.seq
  RETURNING id, event_type, created_at, inbox_seq
), fwd AS (
  INSERT INTO ${s}.deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT msg.id, sub.id, 'pending', msg.created_at, msg.created_at, msg.created_at
  FROM msg JOIN ${s}.subscriptions sub
    ON ${DESTINATIONS} AND (sub.event_types IS NULL OR msg.event_type = ANY(sub.event_types))
  ORDER BY msg.inbox_seq, sub.id
  RETURNING subscription_id
), woke AS (SELECT pg_notify($7, '') FROM (SELECT 1 FROM fwd JOIN ${s}.subscriptions sub ON sub.id = fwd.subscription_id
                                          WHERE NOT sub.paused LIMIT 1) one)
SELECT seq, webhook_id, pg_notify($5, seq::text), (SELECT count(*) FROM woke) AS woke FROM ins`;

/** Inserts a batch in one statement; the first row of a webhook id wins, in the batch as across writers. */
async function insertEvents(
  ctx: PgContext,
  sql: string,
  batch: PendingInboxRow[],
  forwards = false,
): Promise<InboxRecordResult[]> {
  // Sorting gives every writer the same lock order on the unique index, so two batches holding the same ids
  // cannot deadlock.
  const firsts = new Map<string, PendingInboxRow>();
  for (const row of batch) if (!firsts.has(row.webhookId)) firsts.set(row.webhookId, row);
  const rows = [...firsts.values()].sort((a, b) => (a.webhookId < b.webhookId ? -1 : 1));
  const inserted = await query<{ seq: string; webhook_id: string }>(ctx, sql, [
    rows.map((r) => r.webhookId),
    rows.map((r) => r.body),
    rows.map((r) => headersJson(r.headers)),
    rows.map((r) => r.receivedAt),
    ctx.channels.inbox,
    rows.map((r) => r.eventType),
    ...(forwards ? [ctx.channels.outbox] : []),
  ]);
  const seqOf = new Map(inserted.map((r) => [r.webhook_id, Number(r.seq)]));
  return batch.map((row): InboxRecordResult => {
    const seq = seqOf.get(row.webhookId);
    if (seq === undefined || firsts.get(row.webhookId) !== row)
      return { duplicate: true, webhookId: row.webhookId };
    return { duplicate: false, event: storedInboxEvent(row, seq) };
  });
}

async function getEvent(ctx: PgContext, webhookId: string): Promise<InboxEvent | null> {
  const [row] = await query<InboxRow>(ctx, `SELECT * FROM ${ctx.s}.inbox_events WHERE webhook_id = $1`, [
    webhookId,
  ]);
  return row ? toInboxEvent(row) : null;
}

async function listEvents(ctx: PgContext, options: InboxListOptions): Promise<Page<InboxEvent>> {
  // $1 is the row limit; the filters follow.
  const { limit, maxBytes, where, params } = inboxListQuery(options, (n) => `$${n + 1}`);
  // Sizes first (no bodies read): the page is cut before the body that would take it past maxBytes.
  const take =
    maxBytes === undefined
      ? limit
      : fitBytes(
          (
            await query<{ size: number }>(
              ctx,
              `SELECT octet_length(body) AS size FROM ${ctx.s}.inbox_events ${where} ORDER BY seq DESC LIMIT $1`,
              [limit, ...params],
            )
          ).map((row) => Number(row.size)),
          maxBytes,
        );
  const rows = await query<InboxRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.inbox_events ${where} ORDER BY seq DESC LIMIT $1`,
    [take + 1, ...params],
  );
  return inboxPage(rows.map(toInboxEvent), take);
}

async function* streamEvents(
  ctx: PgContext,
  options: Parameters<Inbox["stream"]>[0],
): AsyncGenerator<InboxEvent> {
  await ctx.listener.start().catch(() => {}); // without it, the poll fallback still works
  yield* followInbox(followSource(ctx), options);
}

/** What `followInbox` reads on PostgreSQL. */
function followSource(ctx: PgContext): InboxFollowSource {
  return {
    notifier: ctx.inboxSeqs,
    closed: ctx.closed,
    // Seqs are taken at insert and committed in any order; the reconnect emits [] (open-pg.ts).
    commitsOutOfOrder: true,
    maxSeq: async () =>
      Number(
        (await query<{ n: string }>(ctx, `SELECT coalesce(max(seq), 0) AS n FROM ${ctx.s}.inbox_events`))[0]
          ?.n,
      ),
    fetchAfter: async (after, extra, limit) => {
      const rows = await query<InboxRow>(
        ctx,
        `SELECT * FROM ${ctx.s}.inbox_events WHERE seq > $1 OR seq = ANY($2::bigint[]) ORDER BY seq LIMIT $3`,
        [after, extra, limit],
      );
      return rows.map(toInboxEvent);
    },
  };
}

async function markProcessed(
  ctx: PgContext,
  webhookId: string,
  at: Date | number | undefined,
): Promise<boolean> {
  const rows = await query(
    ctx,
    `UPDATE ${ctx.s}.inbox_events SET processed_at = $1 WHERE webhook_id = $2 AND processed_at IS NULL RETURNING seq`,
    [processedAt(at, ctx.options), webhookId],
  );
  return rows.length > 0;
}

async function countEvents(ctx: PgContext, processed: boolean | undefined): Promise<number> {
  const where = processedCondition(processed);
  const [row] = await query(
    ctx,
    `SELECT count(*) AS n FROM ${ctx.s}.inbox_events ${where ? `WHERE ${where}` : ""}`,
  );
  return Number(row?.n);
}
