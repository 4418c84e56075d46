import { closeSync, mkdirSync, openSync, statfsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createMessageIdGenerator } from "@plant-store/core";
import Database from "better-sqlite3";
import type { Store } from "../api/store.js";
import { StoreConfigError, StoreUnavailableError } from "../errors.js";
import type { ResolvedOptions } from "../options.js";
import { Notifier } from "../shared/notifier.js";
import { purgeLimits } from "../shared/purge.js";
import type { SecretBox } from "../shared/secret-box.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import { migrateSqlite } from "./migrations.js";
import { createSqliteInbox } from "./sqlite-inbox.js";
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
  let opened: Database.Database | undefined;
  try {
    if (path !== ":memory:") createPrivately(path, options);
    opened = new Database(path);
    const db = opened;
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
  } catch (error) {
    opened?.close();
    throw mapSqliteError(error);
  }
  const db = opened;
  const sameFile = path === ":memory:" ? undefined : fileIdentityCheck(path);

  const statements = new Map<string, Database.Statement>();
  const closing = new AbortController();
  const ctx: SqliteContext = {
    db,
    options,
    box,
    closed: closing.signal,
    inboxSeqs: new Notifier<number[]>(),
    outboxWork: new Notifier<void>(),
    nextId: createMessageIdGenerator({ now: options.now }),
    checkFile:
      sameFile === undefined
        ? undefined
        : () => {
            if (!sameFile()) {
              throw new StoreUnavailableError(
                `The SQLite database file ${path} was deleted or replaced while this process had it open; nothing more is written to it (it would be lost). Restart the process.`,
                { code: "store_file_replaced" },
              );
            }
          },
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
  const inbox = createSqliteInbox(ctx);
  const outbox = createSqliteOutbox(ctx);
  let closed: Promise<void> | undefined;

  return {
    backend: "sqlite",
    inbox,
    subscriptions: createSqliteSubscriptions(ctx),
    outbox,
    // Readiness means a write can commit: a read succeeds in WAL mode while another process holds the write
    // lock, so the probe takes the lock (BEGIN IMMEDIATE, writing nothing) and waits for it as a write would. A
    // rolled-back probe writes nothing, so it cannot tell a full disk: the free space is checked instead.
    ping: () =>
      runSqlite(ctx, () => {
        if (path !== ":memory:") checkFreeSpace(path, options.minFreeDiskBytes);
        if (db.inTransaction) return;
        db.exec("BEGIN IMMEDIATE");
        db.exec("ROLLBACK");
      }),
    purge: (options) =>
      runSqlite(ctx, () => {
        const { before, batchSize } = purgeLimits(options);
        const inboxEvents = ctx
          .sql(
            `DELETE FROM inbox_events WHERE seq IN
               (SELECT seq FROM inbox_events WHERE received_at < ? ORDER BY seq LIMIT ?)`,
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
      }),
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

/** Fails with `disk_low` while the file system holding `path` has less than `minimum` bytes free (for unprivileged writers). */
function checkFreeSpace(path: string, minimum: number): void {
  if (minimum === 0) return;
  const fs = statfsSync(dirname(path), { bigint: true });
  const free = fs.bavail * fs.bsize;
  if (free < BigInt(minimum)) {
    throw new StoreUnavailableError(
      `Only ${mebibytes(free)} is free on the file system of ${path}, less than the ${mebibytes(BigInt(minimum))} required (minFreeDiskBytes): writes would soon fail. Free some space.`,
      { code: "disk_low" },
    );
  }
}

const mebibytes = (n: bigint) => `${(Number(n) / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Creates the database's directory (0700) and file (0600) when they do not exist yet: the sender's database holds
 * subscription credentials, the receiver's the events it was sent. SQLite gives the -wal and -shm files the mode of
 * the database file. An existing file keeps its mode; one that every local user may read is warned about.
 */
function createPrivately(path: string, options: ResolvedOptions): void {
  const existing = statOrNothing(path);
  if (existing?.isDirectory())
    throw new StoreConfigError(
      "invalid_path",
      `The SQLite database path ${path} is a directory; give a file path, e.g. ${join(path, "plant-store.db")}.`,
    );
  if (!existing) makeDirectories(dirname(path));
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "EEXIST") throw pathError(path, code, error);
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o007) {
      options.logger.warn(
        `The SQLite database file ${path} can be accessed by every local user (mode ${mode.toString(8)}); it holds webhook data and, for a sender, subscription credentials. Consider \`chmod 600\`.`,
      );
    }
  }
}

/**
 * `mkdir -p` with mode 0700, one level at a time: node's recursive mkdirSync never returns for a path under /proc
 * (it retries ENOENT forever), and a level that exists but is a file must be named, not reported as EEXIST.
 */
function makeDirectories(directory: string): void {
  const missing: string[] = [];
  let current = directory;
  for (;;) {
    const stat = statOrNothing(current);
    if (stat) {
      if (!stat.isDirectory())
        throw new StoreConfigError(
          "invalid_path",
          `The SQLite database path cannot be created: ${current} is a file, not a directory. Give a path in a directory.`,
        );
      break;
    }
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "EEXIST") throw pathError(level, code, error);
    }
  }
}

/** The path's stat, or undefined when nothing is there — also when a level above it is a file (ENOTDIR). */
function statOrNothing(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** An operating-system refusal to create the database's directory or file, naming the path and what to check. */
function pathError(path: string, code: unknown, cause: unknown): StoreUnavailableError {
  const hint =
    code === "EACCES" || code === "EPERM"
      ? "this user may not write there; choose a writable path or fix its permissions"
      : code === "EROFS"
        ? "the file system is read-only; choose a writable path"
        : code === "ENOSPC"
          ? "the disk is full"
          : "choose a path on a writable local file system";
  return new StoreUnavailableError(
    `Cannot create ${path} for the SQLite database (${String(code)}): ${hint}.`,
    {
      cause,
    },
  );
}

/**
 * A check that the file now at `path` is still the one there when the check was made (same device and inode): false
 * once it is deleted or replaced, and always false if there was no file to begin with. It runs before every store
 * operation, so it reads a number stat when the device and inode are exact as doubles (the usual case): a bigint
 * stat and the text of its fields cost about 2.6K instructions more per call (docs/decisions.md, 2026-11-27, day).
 * A device or inode beyond 2^53, which a double could round onto a neighbour's, is compared as bigints on every
 * call. `numbers` forces one way or the other (tests).
 */
export function fileIdentityCheck(path: string, numbers?: boolean): () => boolean {
  const opened = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (opened === undefined) return () => false;
  const { dev, ino } = opened;
  if (numbers ?? (dev <= BigInt(Number.MAX_SAFE_INTEGER) && ino <= BigInt(Number.MAX_SAFE_INTEGER))) {
    const devNumber = Number(dev);
    const inoNumber = Number(ino);
    return () => {
      const now = statSync(path, { throwIfNoEntry: false });
      return now !== undefined && now.ino === inoNumber && now.dev === devNumber;
    };
  }
  return () => {
    const now = statSync(path, { bigint: true, throwIfNoEntry: false });
    return now !== undefined && now.ino === ino && now.dev === dev;
  };
}
