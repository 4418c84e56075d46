import { DEFAULT_EVENT_TYPE } from "@plant-store/spec";
import type { Inbox, InboxRecordInput, InboxRecordResult } from "../api/inbox.js";
import { StoreUnavailableError } from "../errors.js";
import { decodeCursor, encodeCursor, fitBytes, pageLimit, pageMaxBytes } from "../shared/cursor.js";
import { followInbox } from "../shared/follow-inbox.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { headersJson, pickHeaders } from "../shared/headers.js";
import { type InboxRow, type PendingInboxRow, storedInboxEvent, toInboxEvent } from "../shared/rows.js";
import { toMillis } from "../shared/time.js";
import { checkEventType, checkKey, copyBody } from "../shared/validate.js";
import { type PgContext, query } from "./context.js";

/** The inbox plus `drain()`, which `close()` awaits. */
export interface PgInbox extends Inbox {
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
  const { s } = ctx;
  const keep = ctx.options.keptHeaders;
  const insertSql = `
WITH ins AS (
  INSERT INTO ${s}.inbox_events (webhook_id, body, headers, received_at, event_type)
  SELECT * FROM unnest($1::text[], $2::bytea[], $3::jsonb[], $4::bigint[], $6::text[])
  ON CONFLICT (webhook_id) DO NOTHING
  RETURNING seq, webhook_id
)
SELECT seq, webhook_id, pg_notify($5, seq::text) FROM ins`;

  const write = async (batch: PendingInboxRow[]): Promise<InboxRecordResult[]> => {
    // First occurrence wins inside a batch too. Sorting gives every writer the same lock order on
    // the unique index, so two batches holding the same ids cannot deadlock.
    const firsts = new Map<string, PendingInboxRow>();
    for (const row of batch) if (!firsts.has(row.webhookId)) firsts.set(row.webhookId, row);
    const rows = [...firsts.values()].sort((a, b) => (a.webhookId < b.webhookId ? -1 : 1));
    const inserted = await query<{ seq: string; webhook_id: string }>(ctx, insertSql, [
      rows.map((r) => r.webhookId),
      rows.map((r) => r.body),
      rows.map((r) => headersJson(r.headers)),
      rows.map((r) => r.receivedAt),
      ctx.channels.inbox,
      rows.map((r) => r.eventType),
    ]);
    const seqOf = new Map(inserted.map((r) => [r.webhook_id, Number(r.seq)]));
    return batch.map((row): InboxRecordResult => {
      const seq = seqOf.get(row.webhookId);
      if (seq === undefined || firsts.get(row.webhookId) !== row)
        return { duplicate: true, webhookId: row.webhookId };
      return { duplicate: false, event: storedInboxEvent(row, seq) };
    });
  };
  // A few batches in flight keep the pool busy while one waits for its commit.
  const committer = new GroupCommitter(write, { maxBatch: ctx.options.maxBatchSize, maxInFlight: 4 });
  const processedFilter = (processed: boolean | undefined) =>
    processed === undefined ? "" : processed ? "processed_at IS NOT NULL" : "processed_at IS NULL";

  return {
    async record(input: InboxRecordInput) {
      if (ctx.closed.aborted)
        throw new StoreUnavailableError("The store is closed.", { code: "store_closed" });
      const row: PendingInboxRow = {
        webhookId: checkKey(input?.webhookId, "webhook id"),
        eventType: checkEventType(input.eventType, DEFAULT_EVENT_TYPE),
        body: copyBody(input.body),
        headers: pickHeaders(input.headers, keep),
        receivedAt: input.receivedAt === undefined ? ctx.options.now() : toMillis(input.receivedAt),
      };
      if (!ctx.options.groupCommit) return (await write([row]))[0] as InboxRecordResult;
      return committer.submit(row);
    },
    async get(webhookId) {
      const [row] = await query<InboxRow>(ctx, `SELECT * FROM ${s}.inbox_events WHERE webhook_id = $1`, [
        webhookId,
      ]);
      return row ? toInboxEvent(row) : null;
    },
    async list(options = {}) {
      const limit = pageLimit(options.limit);
      const before = decodeCursor(options.cursor);
      const type = options.type === undefined ? undefined : checkEventType(options.type, "");
      // $1 is the row limit; the filters follow.
      const filters: unknown[] = [];
      const conditions = [
        before === null ? "" : `seq < $${filters.push(before) + 1}`,
        type === undefined ? "" : `event_type = $${filters.push(type) + 1}`,
        processedFilter(options.processed),
      ].filter(Boolean);
      const where = conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
      const maxBytes = pageMaxBytes(options.maxBytes);
      // Sizes first (no bodies read): the page is cut before the body that would take it past maxBytes.
      const take =
        maxBytes === undefined
          ? limit
          : fitBytes(
              (
                await query<{ size: number }>(
                  ctx,
                  `SELECT octet_length(body) AS size FROM ${s}.inbox_events ${where} ORDER BY seq DESC LIMIT $1`,
                  [limit, ...filters],
                )
              ).map((row) => Number(row.size)),
              maxBytes,
            );
      const rows = await query<InboxRow>(
        ctx,
        `SELECT * FROM ${s}.inbox_events ${where} ORDER BY seq DESC LIMIT $1`,
        [take + 1, ...filters],
      );
      const items = rows.slice(0, take).map(toInboxEvent);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > take && last ? encodeCursor(last.seq) : null };
    },
    async *stream(options) {
      await ctx.listener.start().catch(() => {}); // without it, the poll fallback still works
      yield* followInbox(
        {
          notifier: ctx.inboxSeqs,
          closed: ctx.closed,
          // Seqs are taken at insert and committed in any order; the reconnect emits [] (open-pg.ts).
          commitsOutOfOrder: true,
          maxSeq: async () =>
            Number(
              (await query<{ n: string }>(ctx, `SELECT coalesce(max(seq), 0) AS n FROM ${s}.inbox_events`))[0]
                ?.n,
            ),
          fetchAfter: async (after, extra, limit) => {
            const rows = await query<InboxRow>(
              ctx,
              `SELECT * FROM ${s}.inbox_events WHERE seq > $1 OR seq = ANY($2::bigint[]) ORDER BY seq LIMIT $3`,
              [after, extra, limit],
            );
            return rows.map(toInboxEvent);
          },
        },
        options,
      );
    },
    async markProcessed(webhookId, at) {
      const rows = await query(
        ctx,
        `UPDATE ${s}.inbox_events SET processed_at = $1 WHERE webhook_id = $2 AND processed_at IS NULL RETURNING seq`,
        [at === undefined ? ctx.options.now() : toMillis(at), webhookId],
      );
      return rows.length > 0;
    },
    async count(options = {}) {
      const where = processedFilter(options.processed);
      const [row] = await query(
        ctx,
        `SELECT count(*) AS n FROM ${s}.inbox_events ${where ? `WHERE ${where}` : ""}`,
      );
      return Number(row?.n);
    },
    drain: () => committer.drain(),
  };
}
