import type Database from "better-sqlite3";
import { StoreError, StoreUnavailableError, storeClosedError } from "../errors.js";
import type { ResolvedOptions } from "../options.js";
import type { ForwardGate } from "../shared/forward-gate.js";
import type { Notifier } from "../shared/notifier.js";
import type { RateLimitedGate } from "../shared/rate-limited-gate.js";
import type { SecretBox } from "../shared/secret-box.js";

/** What the SQLite inbox, subscriptions and outbox share. */
export interface SqliteContext {
  db: Database.Database;
  options: ResolvedOptions;
  box: SecretBox;
  closed: AbortSignal;
  inboxSeqs: Notifier<number[]>;
  outboxWork: Notifier<void>;
  /** Whether the inbox's writes look for destinations to forward to. */
  forwardGate: ForwardGate;
  /** Which sender subscriptions have a rate limit (their rows go to the options claim). */
  rateGate: RateLimitedGate;
  /** Throws `store_file_replaced` once the database's path no longer names the open file (absent for :memory:). */
  checkFile: (() => void) | undefined;
  /** ULID-ordered ids from core's generator. */
  nextId: () => string;
  /** A prepared statement, cached by its text. */
  sql(text: string): Database.Statement;
  /**
   * Runs `work` (one transaction) committing with `synchronous = NORMAL` instead of FULL: in WAL mode the commit
   * still survives a process crash (kill -9), and only a power loss can undo it — together with every later
   * relaxed commit, never an earlier FULL one. For the outbox's own bookkeeping (claims, outcomes), whose loss
   * means a repeated delivery that receivers deduplicate, never for what a caller was told is stored.
   */
  relaxed<T>(work: () => T): T;
}

// Conditions of the disk or of other processes, not of the caller's input: the app should answer
// 503 and the sender retry later.
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|NOMEM|PROTOCOL|CORRUPT|NOTADB)/;

/** Maps a better-sqlite3 error to a `StoreError`; store errors pass through. */
export function mapSqliteError(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown })?.code;
  // Node system errors (EACCES, ENOSPC, EROFS… from creating the directory) are the disk's too.
  if (typeof code === "string" && (TRANSIENT.test(code) || /^E[A-Z]+$/.test(code))) {
    return new StoreUnavailableError(`The SQLite database is unavailable (${code}).`, { cause: error });
  }
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
    return storeClosedError(error);
  }
  return new StoreError("store_error", `SQLite failed: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}

/** Runs synchronous database work as a promise: rejects once closed, maps errors, waits out a busy lock. */
export function runSqlite<T>(ctx: SqliteContext, work: () => T): Promise<T> {
  if (ctx.closed.aborted) {
    return Promise.reject(storeClosedError());
  }
  try {
    ctx.checkFile?.();
    return Promise.resolve(work());
  } catch (error) {
    return isBusy(error) ? retryBusy(ctx, work) : Promise.reject(mapSqliteError(error));
  }
}

/** SQLite's answer when another connection (another process) holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Retries `work` while another connection holds the lock, sleeping between tries (1, 2, 4 … 50 ms) so the event
 * loop keeps serving, for up to `busyTimeoutMs`; then fails as unavailable (the app answers 503). The connection's
 * own busy_timeout is 0 after open: better-sqlite3 is synchronous, and SQLite's busy handler would block the whole
 * process for as long as it waits.
 */
async function retryBusy<T>(ctx: SqliteContext, work: () => T): Promise<T> {
  const deadline = Date.now() + ctx.options.busyTimeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (ctx.closed.aborted) throw storeClosedError();
    ctx.checkFile?.();
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw mapSqliteError(error);
    }
  }
}
