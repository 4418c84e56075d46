import type Database from "better-sqlite3";
import type { InboxRecordResult } from "../api/inbox.js";
import { headersJson } from "../shared/headers.js";
import { type PendingInboxRow, storedInboxEvent } from "../shared/rows.js";
import type { SqliteContext } from "./context.js";
import { ANY_DESTINATION, insertInboxEventsSql } from "./outbox-sql.js";

/** The most rows one INSERT statement of the inbox carries (5 values each, far below SQLite's variable limit). */
const ROWS_PER_INSERT = 64;

// No RETURNING: SQLite materialises its rows through a temporary table. `changes` tells a duplicate (0) from an
// insert, and `lastInsertRowid` is the new row's seq.
const INSERT_ONE = `INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (webhook_id) DO NOTHING`;

/** What the SQLite inbox's write path holds on to: the one-row statement and the two batch transactions. */
export interface SqliteInboxWriter {
  ctx: SqliteContext;
  insertOne: Database.Statement;
  oneByOne: Database.Transaction<typeof insertOneByOne>;
  inChunks: Database.Transaction<typeof insertInChunks>;
}

/**
 * Prepares the inbox's write path once per store.
 *
 * @example
 * ```ts
 * const writer = createSqliteInboxWriter(ctx);
 * commitInboxRows(writer, rows); // one commit
 * ```
 */
export function createSqliteInboxWriter(ctx: SqliteContext): SqliteInboxWriter {
  return {
    ctx,
    insertOne: ctx.sql(INSERT_ONE),
    oneByOne: ctx.db.transaction(insertOneByOne),
    inChunks: ctx.db.transaction(insertInChunks),
  };
}

/**
 * Inserts a group commit's rows in one commit and tells the live streams their seqs. Run it inside `runSqlite`,
 * which maps errors and waits out another process's lock. Destinations write nothing here (decision 45): an event
 * after a destination's cursor is its pending forward, so the inbox's commit is the forward's. New events wake the
 * outbox's workers while some destination is not paused (the forward gate, looked at again every second and at once
 * on this process's changes).
 *
 * @example
 * ```ts
 * const results = await runSqlite(ctx, () => commitInboxRows(writer, rows));
 * ```
 */
export function commitInboxRows(writer: SqliteInboxWriter, rows: PendingInboxRow[]): InboxRecordResult[] {
  const { ctx } = writer;
  const results = insertBatch(writer, rows);
  const seqs: number[] = [];
  for (const result of results) if (!result.duplicate) seqs.push(result.event.seq);
  if (seqs.length === 0) return results;
  ctx.inboxSeqs.emit(seqs);
  if (ctx.forwardGate.stale()) {
    const [any, notPaused] = ctx.sql(ANY_DESTINATION).raw(true).get() as [number, number];
    ctx.forwardGate.set(any === 1, notPaused === 1);
  }
  // Only paused destinations: a claim would take nothing, so waking the workers would cost a claim for nothing.
  if (ctx.forwardGate.wakes) ctx.outboxWork.emit();
  return results;
}

/**
 * A batch that fits one statement is that statement alone, its own transaction (autocommit: no BEGIN and COMMIT
 * around it). A duplicate among several rows undoes that statement whole, and the rows go one by one in one
 * transaction (a second take of the write lock: what another process committed in between is a duplicate like any
 * other). A larger batch is several statements in one transaction: one commit.
 */
function insertBatch(writer: SqliteInboxWriter, rows: PendingInboxRow[]): InboxRecordResult[] {
  if (rows.length === 1) return [insertRow(writer, rows[0] as PendingInboxRow)];
  if (rows.length > ROWS_PER_INSERT) return writer.inChunks.immediate(writer, rows);
  return insertRows(writer.ctx, rows) ?? writer.oneByOne.immediate(writer, rows);
}

/** One row by the one-row statement: it tells a duplicate apart. */
function insertRow(writer: SqliteInboxWriter, row: PendingInboxRow): InboxRecordResult {
  const inserted = writer.insertOne.run(
    row.webhookId,
    row.eventType,
    row.body,
    headersJson(row.headers),
    row.receivedAt,
  );
  if (inserted.changes === 0) return { duplicate: true, webhookId: row.webhookId };
  return { duplicate: false, event: storedInboxEvent(row, Number(inserted.lastInsertRowid)) };
}

function insertOneByOne(writer: SqliteInboxWriter, rows: readonly PendingInboxRow[]): InboxRecordResult[] {
  return rows.map((row) => insertRow(writer, row));
}

function insertInChunks(writer: SqliteInboxWriter, rows: PendingInboxRow[]): InboxRecordResult[] {
  const results: InboxRecordResult[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    results.push(...(insertRows(writer.ctx, chunk) ?? chunk.map((row) => insertRow(writer, row))));
  }
  return results;
}

/**
 * Several rows in ONE statement, fewer statements per commit. Without a conflict clause, a duplicate webhook-id makes
 * the whole statement fail and undo itself (SQLite's ABORT): null, and the caller inserts the rows one by one.
 * Otherwise every row was inserted, in order, each taking the next seq (the statement holds the write lock), so the
 * last row's seq gives all of them.
 */
function insertRows(ctx: SqliteContext, rows: readonly PendingInboxRow[]): InboxRecordResult[] | null {
  const values: unknown[] = [];
  for (const row of rows) {
    values.push(row.webhookId, row.eventType, row.body, headersJson(row.headers), row.receivedAt);
  }
  let last: number;
  try {
    // Spread, not one array: better-sqlite3 reads an array's values one by one through V8's API.
    const inserted = ctx.sql(insertInboxEventsSql(rows.length)).run(...values);
    // Cannot happen (no conflict clause, no trigger); run in autocommit, the rows would be committed already.
    if (inserted.changes !== rows.length) {
      throw new Error(`A batch of ${rows.length} inbox rows inserted ${inserted.changes}.`);
    }
    last = Number(inserted.lastInsertRowid);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
  // Pushed, not mapped: the group commit hands this array on, and `push` keeps its V8 array map stable.
  const results: InboxRecordResult[] = [];
  let seq = last - rows.length + 1;
  for (const row of rows) results.push({ duplicate: false, event: storedInboxEvent(row, seq++) });
  return results;
}

/** A UNIQUE constraint failure (the webhook_id of a row already stored, or twice in one statement). */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "SQLITE_CONSTRAINT_UNIQUE";
}
