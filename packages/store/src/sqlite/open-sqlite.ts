import { resolve } from "node:path";
import { createMessageIdGenerator } from "@plant-store/core";
import Database from "better-sqlite3";
import type { Store } from "../api/store.js";
import { StoreUnavailableError } from "../errors.js";
import type { ResolvedOptions } from "../options.js";
import { consume } from "../shared/consume.js";
import { ForwardGate } from "../shared/forward-gate.js";
import { Notifier } from "../shared/notifier.js";
import { RateLimitedGate } from "../shared/rate-limited-gate.js";
import type { SecretBox } from "../shared/secret-box.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import { migrateSqlite } from "./migrations.js";
import { createSqliteApplications } from "./sqlite-applications.js";
import { createSqliteDestinations } from "./sqlite-destinations.js";
import { createPrivately, fileIdentityCheck } from "./sqlite-file.js";
import { createSqliteInbox } from "./sqlite-inbox.js";
import { pingSqlite, purgeSqlite } from "./sqlite-maintenance.js";
import { createSqliteOutbox } from "./sqlite-outbox.js";
import { createSqliteSubscriptions } from "./sqlite-subscriptions.js";

/**
 * Opens (creating if needed) a SQLite store: WAL, synchronous=FULL, foreign keys, migrations.
 *
 * @example
 * ```ts
 * const store = openSqliteStore("./data/plant-store.db", resolveOptions({}), box);
 * ```
 */
export function openSqliteStore(given: string, options: ResolvedOptions, box: SecretBox): Store {
  // Absolute once: the identity check stats this path before every operation, and a relative one would name
  // another file after process.chdir().
  const path = given === ":memory:" ? given : resolve(given);
  const db = openDatabase(path, options);
  const closing = new AbortController();
  const ctx = sqliteContext(db, path, options, box, closing.signal);
  const inbox = createSqliteInbox(ctx);
  const outbox = createSqliteOutbox(ctx);
  const destinations = createSqliteDestinations(ctx);
  let closed: Promise<void> | undefined;
  return {
    backend: "sqlite",
    inbox: { ...inbox, consume: (options) => consume({ destinations, outbox }, options) },
    subscriptions: createSqliteSubscriptions(ctx),
    applications: createSqliteApplications(ctx),
    outbox,
    destinations,
    ping: () => runSqlite(ctx, () => pingSqlite(db, path, options.minFreeDiskBytes)),
    purge: (options) => runSqlite(ctx, () => purgeSqlite(ctx, options)),
    close() {
      closed ??= (async () => {
        await inbox.drain();
        await outbox.drain();
        closing.abort();
        db.close();
      })();
      return closed;
    },
  };
}

/** Opens the file with the store's pragmas and migrates it; closes it again if any of that fails. */
function openDatabase(path: string, options: ResolvedOptions): Database.Database {
  let db: Database.Database | undefined;
  try {
    if (path !== ":memory:") createPrivately(path, options);
    db = new Database(path);
    // WAL lets readers (stats, lists, streams) run beside the writer; FULL syncs the WAL on every
    // commit, so an acknowledged inbox write survives power loss, not only a process crash.
    if (path !== ":memory:") db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs))}`);
    migrateSqlite(db, { apply: options.migrate, now: options.now });
    // From here on a lock held by another process is waited out asynchronously (runSqlite / retryBusy): SQLite's
    // own busy handler sleeps inside the call, which with a synchronous driver stalls every request of the process.
    db.pragma("busy_timeout = 0");
    return db;
  } catch (error) {
    db?.close();
    throw mapSqliteError(error);
  }
}

/** The context the inbox, subscriptions and outbox share: the connection, its statement cache, the notifiers. */
function sqliteContext(
  db: Database.Database,
  path: string,
  options: ResolvedOptions,
  box: SecretBox,
  closed: AbortSignal,
): SqliteContext {
  const statements = new Map<string, Database.Statement>();
  const ctx: SqliteContext = {
    db,
    options,
    box,
    closed,
    inboxSeqs: new Notifier<number[]>(),
    outboxWork: new Notifier<void>(),
    forwardGate: new ForwardGate(Date.now),
    rateGate: new RateLimitedGate(Date.now),
    nextId: createMessageIdGenerator({ now: options.now }),
    checkFile: path === ":memory:" ? undefined : fileReplacedCheck(path),
    sql(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = db.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    relaxed(work) {
      ctx.sql("PRAGMA synchronous = NORMAL").run();
      try {
        return work();
      } finally {
        ctx.sql("PRAGMA synchronous = FULL").run();
      }
    },
  };
  return ctx;
}

/** Throws `store_file_replaced` once `path` no longer names the file opened. */
function fileReplacedCheck(path: string): () => void {
  const sameFile = fileIdentityCheck(path);
  return () => {
    if (!sameFile()) {
      throw new StoreUnavailableError(
        `The SQLite database file ${path} was deleted or replaced while this process had it open; nothing more is written to it (it would be lost). Restart the process.`,
        { code: "store_file_replaced" },
      );
    }
  };
}
