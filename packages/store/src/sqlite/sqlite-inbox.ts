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
import { runSqlite, type SqliteContext } from "./context.js";
import { insertInboxEventsSql } from "./outbox-sql.js";

/** The inbox plus `drain()`, which `close()` awaits so no acknowledged-to-be write is lost. */
export interface SqliteInbox extends Inbox {
  drain(): Promise<void>;
}

/**
 * SQLite inbox. With group commit, `record()` calls of one event-loop turn are inserted in one transaction (one
 * INSERT in autocommit for up to 64 rows, otherwise one IMMEDIATE transaction; synchronous=FULL: one WAL fsync
 * either way), and each promise settles after it.
 *
 * @example
 * ```ts
 * const inbox = createSqliteInbox(ctx);
 * await Promise.all(ids.map((webhookId) => inbox.record({ webhookId, body }))); // one commit
 * ```
 */
export function createSqliteInbox(ctx: SqliteContext): SqliteInbox {
  const keep = ctx.options.keptHeaders;
  // No RETURNING: SQLite materialises RETURNING rows through a temporary table, which made each insert take
  // about twice as long. `changes` tells a duplicate (0) from an insert, `lastInsertRowid` is its seq.
  const insert = ctx.sql(
    `INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (webhook_id) DO NOTHING`,
  );
  const insertOne = (row: PendingInboxRow): InboxRecordResult => {
    const inserted = insert.run(
      row.webhookId,
      row.eventType,
      row.body,
      headersJson(row.headers),
      row.receivedAt,
    );
    if (inserted.changes === 0) return { duplicate: true, webhookId: row.webhookId };
    return { duplicate: false, event: storedInboxEvent(row, Number(inserted.lastInsertRowid)) };
  };
  // Several rows of a batch go in ONE statement (up to ROWS_PER_INSERT): a statement per event cost about 9K
  // instructions more per event (bench:parts, docs/decisions.md). Without a conflict clause, a duplicate webhook-id
  // makes the whole statement fail and undo itself (SQLite's ABORT): null, and the caller inserts the rows one by one
  // (insertOne), which tells each duplicate apart. Otherwise every row was inserted, in order, each taking the next
  // seq (the statement holds the write lock), so the last row's seq gives all of them.
  const insertRows = (rows: readonly PendingInboxRow[]): InboxRecordResult[] | null => {
    const values: unknown[] = [];
    for (const row of rows) {
      values.push(row.webhookId, row.eventType, row.body, headersJson(row.headers), row.receivedAt);
    }
    let last: number;
    try {
      const inserted = ctx
        .sql(insertInboxEventsSql(rows.length))
        // Spread, not one array: better-sqlite3 reads an array's values one by one through V8's API.
        .run(...values);
      // Cannot happen (no conflict clause, no trigger); run in autocommit, the rows would be committed already.
      if (inserted.changes !== rows.length) {
        throw new Error(`A batch of ${rows.length} inbox rows inserted ${inserted.changes}.`);
      }
      last = Number(inserted.lastInsertRowid);
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
    // Pushed, not mapped: see GroupCommitter's #flush.
    const results: InboxRecordResult[] = [];
    let seq = last - rows.length + 1;
    for (const row of rows) results.push({ duplicate: false, event: storedInboxEvent(row, seq++) });
    return results;
  };
  const insertOneByOne = ctx.db.transaction((rows: readonly PendingInboxRow[]) => rows.map(insertOne));
  const insertInChunks = ctx.db.transaction((rows: PendingInboxRow[]): InboxRecordResult[] => {
    const results: InboxRecordResult[] = [];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      results.push(...(insertRows(chunk) ?? chunk.map(insertOne)));
    }
    return results;
  });
  // A batch that fits one statement is that statement alone, its own transaction (autocommit; one fdatasync with
  // synchronous=FULL, like any commit): no BEGIN IMMEDIATE and COMMIT around it, 4–9.5K instructions less per
  // commit (docs/decisions.md, 2026-11-27, day). A duplicate among several rows undoes that statement whole, and the
  // rows go one by one in one transaction (a second take of the write lock: what another process committed in
  // between is a duplicate like any other). A larger batch is several statements in one transaction: one commit.
  const insertBatch = (rows: PendingInboxRow[]): InboxRecordResult[] => {
    if (rows.length === 1) return [insertOne(rows[0] as PendingInboxRow)];
    if (rows.length > ROWS_PER_INSERT) return insertInChunks.immediate(rows);
    return insertRows(rows) ?? insertOneByOne.immediate(rows);
  };
  const commit = (rows: PendingInboxRow[]): InboxRecordResult[] => {
    const results = insertBatch(rows);
    const seqs: number[] = [];
    for (const result of results) if (!result.duplicate) seqs.push(result.event.seq);
    if (seqs.length > 0) ctx.inboxSeqs.emit(seqs);
    return results;
  };
  // runSqlite maps errors and waits out another process's lock asynchronously.
  const write = (rows: PendingInboxRow[]) => runSqlite(ctx, () => commit(rows));
  const committer = new GroupCommitter(write, { maxBatch: ctx.options.maxBatchSize });

  const list = (where: string, params: unknown[], limit: number) =>
    (
      ctx
        .sql(`SELECT * FROM inbox_events ${where} ORDER BY seq DESC LIMIT ?`)
        .all(...params, limit + 1) as InboxRow[]
    ).map(toInboxEvent);
  const processedFilter = (processed: boolean | undefined) =>
    processed === undefined ? "" : processed ? "processed_at IS NOT NULL" : "processed_at IS NULL";

  return {
    record(input: InboxRecordInput) {
      if (ctx.closed.aborted) {
        return Promise.reject(new StoreUnavailableError("The store is closed.", { code: "store_closed" }));
      }
      let row: PendingInboxRow;
      try {
        row = {
          webhookId: checkKey(input?.webhookId, "webhook id"),
          eventType: checkEventType(input.eventType, DEFAULT_EVENT_TYPE),
          body: copyBody(input.body),
          headers: pickHeaders(input.headers, keep),
          receivedAt: input.receivedAt === undefined ? ctx.options.now() : toMillis(input.receivedAt),
        };
      } catch (error) {
        return Promise.reject(error);
      }
      if (!ctx.options.groupCommit) return runSqlite(ctx, () => commit([row])[0] as InboxRecordResult);
      return committer.submit(row);
    },
    get: (webhookId) =>
      runSqlite(ctx, () => {
        const row = ctx.sql("SELECT * FROM inbox_events WHERE webhook_id = ?").get(webhookId) as
          | InboxRow
          | undefined;
        return row ? toInboxEvent(row) : null;
      }),
    list: (options = {}) =>
      runSqlite(ctx, () => {
        const limit = pageLimit(options.limit);
        const before = decodeCursor(options.cursor);
        const type = options.type === undefined ? undefined : checkEventType(options.type, "");
        const conditions = [
          before === null ? "" : "seq < ?",
          type === undefined ? "" : "event_type = ?",
          processedFilter(options.processed),
        ].filter(Boolean);
        const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
        const params = [...(before === null ? [] : [before]), ...(type === undefined ? [] : [type])];
        const maxBytes = pageMaxBytes(options.maxBytes);
        // Sizes first (no bodies read): the page is cut before the body that would take it past maxBytes.
        const take =
          maxBytes === undefined
            ? limit
            : fitBytes(
                ctx
                  .sql(`SELECT length(body) FROM inbox_events ${where} ORDER BY seq DESC LIMIT ?`)
                  .pluck()
                  .all(...params, limit) as number[],
                maxBytes,
              );
        const rows = list(where, params, take);
        const items = rows.slice(0, take);
        const last = items.at(-1);
        return { items, nextCursor: rows.length > take && last ? encodeCursor(last.seq) : null };
      }),
    stream: (options) =>
      followInbox(
        {
          notifier: ctx.inboxSeqs,
          closed: ctx.closed,
          maxSeq: () =>
            runSqlite(
              ctx,
              () => ctx.sql("SELECT coalesce(max(seq), 0) FROM inbox_events").pluck().get() as number,
            ),
          fetchAfter: (after, extra, limit) =>
            runSqlite(ctx, () => {
              const rows = ctx
                .sql("SELECT * FROM inbox_events WHERE seq > ? ORDER BY seq LIMIT ?")
                .all(after, limit) as InboxRow[];
              if (extra.length > 0) {
                rows.unshift(
                  ...(ctx
                    .sql(
                      "SELECT * FROM inbox_events WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq",
                    )
                    .all(JSON.stringify(extra)) as InboxRow[]),
                );
              }
              return rows.map(toInboxEvent);
            }),
        },
        options,
      ),
    markProcessed: (webhookId, at) =>
      runSqlite(
        ctx,
        () =>
          ctx
            .sql("UPDATE inbox_events SET processed_at = ? WHERE webhook_id = ? AND processed_at IS NULL")
            .run(at === undefined ? ctx.options.now() : toMillis(at), webhookId).changes > 0,
      ),
    count: (options = {}) =>
      runSqlite(ctx, () => {
        const count = (where: string) =>
          ctx.sql(`SELECT count(*) FROM inbox_events ${where}`).pluck().get() as number;
        if (options.processed === undefined) return count("");
        const unprocessed = count("WHERE processed_at IS NULL");
        return options.processed ? count("") - unprocessed : unprocessed;
      }),
    drain: () => committer.drain(),
  };
}

/** The most rows one INSERT statement of the inbox carries (5 values each, far below SQLite's variable limit). */
const ROWS_PER_INSERT = 64;

/** A UNIQUE constraint failure (the webhook_id of a row already stored, or twice in one statement). */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "SQLITE_CONSTRAINT_UNIQUE";
}
