import type Database from "better-sqlite3";
import type { PurgeOptions, PurgeResult } from "../api/store.js";
import { purgeLimits } from "../shared/purge.js";
import type { SqliteContext } from "./context.js";
import { TAKES_ROW_TYPE } from "./outbox-sql.js";
import { checkFreeSpace } from "./sqlite-file.js";

/**
 * Readiness means a write can commit: a read succeeds in WAL mode while another process holds the write lock, so
 * the probe takes the lock (BEGIN IMMEDIATE, writing nothing) and waits for it as a write would. A rolled-back probe
 * writes nothing, so it cannot tell a full disk: the free space is checked instead. Run it inside `runSqlite`.
 *
 * @example
 * ```ts
 * await runSqlite(ctx, () => pingSqlite(ctx.db, path, ctx.options.minFreeDiskBytes));
 * ```
 */
export function pingSqlite(db: Database.Database, path: string, minFreeDiskBytes: number): void {
  if (path !== ":memory:") checkFreeSpace(path, minFreeDiskBytes);
  if (db.inTransaction) return;
  db.exec("BEGIN IMMEDIATE");
  db.exec("ROLLBACK");
}

/**
 * One purge batch: old inbox events (not those a destination of their type has still to take, after its cursor:
 * decision 45), and old messages none of whose deliveries is still pending or leased. Run it inside `runSqlite`.
 *
 * @example
 * ```ts
 * const { more } = await runSqlite(ctx, () => purgeSqlite(ctx, { before: Date.now() - 30 * 86_400_000 }));
 * ```
 */
export function purgeSqlite(ctx: SqliteContext, options: PurgeOptions): PurgeResult {
  const { before, batchSize } = purgeLimits(options);
  const inboxEvents = ctx
    .sql(
      `DELETE FROM inbox_events WHERE seq IN
         (SELECT seq FROM inbox_events i WHERE received_at < ?
           AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.forward_seq < i.seq AND ${TAKES_ROW_TYPE})
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = 'in_' || i.seq
                           AND d.state IN ('pending', 'leased'))
           ORDER BY seq LIMIT ?)`,
    )
    .run(before, batchSize).changes;
  // Deliveries and their attempts go with their message (ON DELETE CASCADE).
  const messages = ctx
    .sql(
      `DELETE FROM messages WHERE id IN
         (SELECT m.id FROM messages m WHERE m.created_at < ? AND NOT EXISTS
            (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.state IN ('pending', 'leased'))
          ORDER BY m.id LIMIT ?)`,
    )
    .run(before, batchSize).changes;
  return { inboxEvents, messages, more: inboxEvents === batchSize || messages === batchSize };
}
