import type { Pool } from "pg";
import { StoreInputError } from "./errors.js";
import { keptHeaderSet } from "./shared/headers.js";

/** Where warnings go (pino, console, …). Messages never contain secrets. */
export interface StoreLogger {
  warn(message: string): void;
}

/**
 * Options of `openStore`. `url` picks the backend: `":memory:"`, a file path, `sqlite:<path>` or
 * `file:<path>` → SQLite; `postgres://…` / `postgresql://…` (or `pool`) → PostgreSQL.
 */
export interface OpenStoreOptions {
  url?: string | undefined;
  /** PostgreSQL: schema holding the tables (created if missing); default `plant_store`. */
  schema?: string | undefined;
  /** PostgreSQL: use this pool instead of creating one (it is not ended by `close()`). */
  pool?: Pool | undefined;
  /** PostgreSQL: size of the pool the store creates; default 10. */
  poolSize?: number | undefined;
  /**
   * PostgreSQL: `application_name` of the store's connections, as `pg_stat_activity` shows them; default
   * `plant-store`. The LISTEN connection is named with a `-listen` suffix.
   */
  applicationName?: string | undefined;
  /**
   * 32-byte key (64 hex characters or base64) used to encrypt subscription tokens and signing
   * secrets with AES-256-GCM. Without it they are stored in clear and a warning is logged.
   */
  encryptionKey?: string | undefined;
  /** Older keys still accepted for decryption after a key rotation. */
  previousEncryptionKeys?: readonly string[] | undefined;
  /**
   * Check at open that every key the stored credentials were sealed with is configured (one decryption per key
   * id, not per row), failing with `encryption_key_missing` / `encryption_key_unknown` instead of at first use.
   * For apps that deliver (the sender); a service that only publishes or receives never decrypts. Default false.
   */
  checkEncryptionKeys?: boolean | undefined;
  /** Milliseconds since the epoch; default `Date.now`. Tests compress time with it. */
  now?: (() => number) | undefined;
  /** Default: `console`. */
  logger?: StoreLogger | undefined;
  /**
   * Group commit (default `true`): inbox writes — and, on SQLite, outbox publishes — arriving in the same
   * event-loop turn share one transaction.
   */
  groupCommit?: boolean | undefined;
  /** Most events per group commit; default 500. */
  maxBatchSize?: number | undefined;
  /**
   * Extra request headers to keep with inbox events (credentials are always dropped). Each must be a header name
   * (RFC 9110: a token); anything else is refused with `invalid_option`.
   */
  keepHeaders?: readonly string[] | undefined;
  /**
   * How long a statement waits for another connection's lock before failing as unavailable (503 in the apps);
   * default 5000. SQLite: the busy wait, retried off the event loop. PostgreSQL: `lock_timeout` of the store's pool.
   */
  busyTimeoutMs?: number | undefined;
  /**
   * PostgreSQL: the longest a statement may run (`statement_timeout` of the store's pool; default 10000), so a
   * stalled database answers 503 instead of holding requests. A connection that stops answering altogether is
   * dropped 5 s later (client-side read timeout). 0 turns both off. Migrations at open and statements whose cost
   * grows with a backlog (disabling, deleting or recovering a subscription's deliveries) are exempt. A `pool` you
   * pass keeps its own settings.
   */
  statementTimeoutMs?: number | undefined;
  /** Apply pending migrations at open (default `true`); `false` fails if the schema is behind. */
  migrate?: boolean | undefined;
  /**
   * SQLite file: `ping()` (the apps' `/readyz`) fails with `disk_low` while the database's file system has less
   * free space than this, so a load balancer stops sending before writes start failing on a full disk. Default
   * 32 MiB (eight times the WAL's checkpoint size); 0 turns the check off.
   */
  minFreeDiskBytes?: number | undefined;
}

/** Options after defaults, as the backends see them. */
export interface ResolvedOptions {
  now: () => number;
  logger: StoreLogger;
  groupCommit: boolean;
  maxBatchSize: number;
  /** The headers kept with inbox events: the defaults, the app's `keepHeaders`, minus credentials. */
  keptHeaders: ReadonlySet<string>;
  migrate: boolean;
  busyTimeoutMs: number;
  statementTimeoutMs: number;
  minFreeDiskBytes: number;
}

export function resolveOptions(options: OpenStoreOptions): ResolvedOptions {
  return {
    now: options.now ?? Date.now,
    logger: options.logger ?? console,
    groupCommit: options.groupCommit ?? true,
    maxBatchSize: Math.max(1, options.maxBatchSize ?? 500),
    keptHeaders: keptHeaderSet(options.keepHeaders ?? []),
    migrate: options.migrate ?? true,
    busyTimeoutMs: milliseconds(options.busyTimeoutMs ?? 5000, "busyTimeoutMs"),
    statementTimeoutMs: milliseconds(options.statementTimeoutMs ?? 10_000, "statementTimeoutMs"),
    minFreeDiskBytes: bytes(options.minFreeDiskBytes ?? 32 * 1024 * 1024, "minFreeDiskBytes"),
  };
}

function bytes(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new StoreInputError("invalid_option", `${name} must be a whole number of bytes, 0 or more.`);
  }
  return value;
}

function milliseconds(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new StoreInputError("invalid_option", `${name} must be a number of milliseconds, 0 or more.`);
  }
  return value;
}
