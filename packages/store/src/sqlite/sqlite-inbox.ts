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
import { inboxListQuery, inboxPage } from "../shared/inbox-list.js";
import { pendingInboxRow, processedAt } from "../shared/inbox-record.js";
import { type InboxRow, type PendingInboxRow, toInboxEvent } from "../shared/rows.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { commitInboxRows, createSqliteInboxWriter, type SqliteInboxWriter } from "./sqlite-inbox-write.js";

/** The inbox plus `drain()`, which `close()` awaits so no acknowledged-to-be write is lost. */
export interface SqliteInbox extends Omit<Inbox, "consume"> {
  drain(): Promise<void>;
}

/** The group committer of the SQLite inbox's writes. */
type InboxCommitter = GroupCommitter<PendingInboxRow, InboxRecordResult>;

/**
 * SQLite inbox. With group commit, `record()` calls of one event-loop turn are inserted in one transaction (one
 * INSERT in autocommit when they fit one statement, otherwise one IMMEDIATE transaction; synchronous=FULL: one WAL
 * fsync either way), and each promise settles after it.
 *
 * @example
 * ```ts
 * const inbox = createSqliteInbox(ctx);
 * await Promise.all(ids.map((webhookId) => inbox.record({ webhookId, body }))); // one commit
 * ```
 */
export function createSqliteInbox(ctx: SqliteContext): SqliteInbox {
  const writer = createSqliteInboxWriter(ctx);
  const committer: InboxCommitter = new GroupCommitter(
    (rows: PendingInboxRow[]) => runSqlite(ctx, () => commitInboxRows(writer, rows)),
    { maxBatch: ctx.options.maxBatchSize },
  );
  return {
    record: (input) => recordEvent(ctx, writer, committer, input),
    get: (webhookId) => runSqlite(ctx, () => getEvent(ctx, webhookId)),
    list: (options = {}) => runSqlite(ctx, () => listEvents(ctx, options)),
    stream: (options) => followInbox(followSource(ctx), options),
    markProcessed: (webhookId, at) => runSqlite(ctx, () => markProcessed(ctx, webhookId, at)),
    count: (options = {}) => runSqlite(ctx, () => countEvents(ctx, options.processed)),
    drain: () => committer.drain(),
  };
}

/** Checks the input at once (a bad one rejects without waiting for a batch), then commits it. */
function recordEvent(
  ctx: SqliteContext,
  writer: SqliteInboxWriter,
  committer: InboxCommitter,
  input: InboxRecordInput,
): Promise<InboxRecordResult> {
  if (ctx.closed.aborted) return Promise.reject(storeClosedError());
  let row: PendingInboxRow;
  try {
    row = pendingInboxRow(input, ctx.options);
  } catch (error) {
    return Promise.reject(error);
  }
  if (!ctx.options.groupCommit) {
    return runSqlite(ctx, () => commitInboxRows(writer, [row])[0] as InboxRecordResult);
  }
  return committer.submit(row);
}

function getEvent(ctx: SqliteContext, webhookId: string): InboxEvent | null {
  const row = ctx.sql("SELECT * FROM inbox_events WHERE webhook_id = ?").get(webhookId) as
    | InboxRow
    | undefined;
  return row ? toInboxEvent(row) : null;
}

function listEvents(ctx: SqliteContext, options: InboxListOptions): Page<InboxEvent> {
  const { limit, maxBytes, where, params } = inboxListQuery(options, () => "?");
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
  const rows = ctx
    .sql(`SELECT * FROM inbox_events ${where} ORDER BY seq DESC LIMIT ?`)
    .all(...params, take + 1) as InboxRow[];
  return inboxPage(rows.map(toInboxEvent), take);
}

/** What `followInbox` reads: SQLite commits in seq order, so no sweep for lost notifications. */
function followSource(ctx: SqliteContext): InboxFollowSource {
  return {
    notifier: ctx.inboxSeqs,
    closed: ctx.closed,
    maxSeq: () =>
      runSqlite(ctx, () => ctx.sql("SELECT coalesce(max(seq), 0) FROM inbox_events").pluck().get() as number),
    fetchAfter: (after, extra, limit) => runSqlite(ctx, () => eventsAfter(ctx, after, extra, limit)),
  };
}

/** Events with `seq > after` (at most `limit`), preceded by those whose seq is in `extra`. */
function eventsAfter(
  ctx: SqliteContext,
  after: number,
  extra: readonly number[],
  limit: number,
): InboxEvent[] {
  const rows = ctx
    .sql("SELECT * FROM inbox_events WHERE seq > ? ORDER BY seq LIMIT ?")
    .all(after, limit) as InboxRow[];
  if (extra.length > 0) {
    rows.unshift(
      ...(ctx
        .sql("SELECT * FROM inbox_events WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq")
        .all(JSON.stringify(extra)) as InboxRow[]),
    );
  }
  return rows.map(toInboxEvent);
}

function markProcessed(ctx: SqliteContext, webhookId: string, at: Date | number | undefined): boolean {
  return (
    ctx
      .sql("UPDATE inbox_events SET processed_at = ? WHERE webhook_id = ? AND processed_at IS NULL")
      .run(processedAt(at, ctx.options), webhookId).changes > 0
  );
}

/** Processed = all minus unprocessed: a bare count and the unprocessed partial index, where `IS NOT NULL` scans. */
function countEvents(ctx: SqliteContext, processed: boolean | undefined): number {
  const count = (where: string) =>
    ctx.sql(`SELECT count(*) FROM inbox_events ${where}`).pluck().get() as number;
  if (processed === undefined) return count("");
  const unprocessed = count("WHERE processed_at IS NULL");
  return processed ? count("") - unprocessed : unprocessed;
}
