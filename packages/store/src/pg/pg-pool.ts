import pg from "pg";
import { StoreInputError, StoreUnavailableError } from "../errors.js";
import type { OpenStoreOptions, ResolvedOptions } from "../options.js";
import { mapPgError } from "./context.js";
import { migratePg } from "./migrations.js";

/** How long the store's connections wait to connect. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * The schema the store's tables live in (default `plant_store`), checked to be a plain identifier.
 *
 * @example
 * ```ts
 * pgSchema({}); // "plant_store"
 * ```
 */
export function pgSchema(options: OpenStoreOptions): string {
  const schema = options.schema ?? "plant_store";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreInputError(
      "invalid_schema",
      "schema must be a plain identifier (letters, digits, _; at most 63).",
    );
  }
  return schema;
}

/**
 * `application_name` of the store's connections (default `plant-store`).
 *
 * @example
 * ```ts
 * pgApplicationName({ applicationName: "sender" }); // "sender"
 * ```
 */
export function pgApplicationName(options: OpenStoreOptions): string {
  return options.applicationName ?? "plant-store";
}

/**
 * The pool the store creates when the caller gives none, with bounded waits: a lock held elsewhere or a stalled
 * server answers 503 (StoreUnavailableError), never a request that hangs; a connection that stops answering is
 * dropped (pool.query / transaction release it with the error) and TCP keep-alive finds dead peers.
 *
 * @example
 * ```ts
 * const pool = createPgPool({ url: "postgres://localhost/app" }, resolveOptions({}));
 * ```
 */
export function createPgPool(options: OpenStoreOptions, resolved: ResolvedOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: pgApplicationName(options),
    // busyTimeoutMs 0 means "do not wait" as on SQLite (1 ms); statementTimeoutMs 0 means no limit, as in PostgreSQL.
    lock_timeout: Math.max(1, Math.trunc(resolved.busyTimeoutMs)),
    ...(resolved.statementTimeoutMs > 0 && {
      statement_timeout: Math.max(1, Math.trunc(resolved.statementTimeoutMs)),
      query_timeout: Math.max(1, Math.trunc(resolved.statementTimeoutMs)) + 5000,
    }),
    keepAlive: true,
  });
  // An idle pooled connection dropped by the server emits 'error' on the pool; unhandled, it would
  // crash the process. The next query reconnects.
  pool.on("error", (error) =>
    resolved.logger.warn(`plant-store: idle PostgreSQL connection lost (${error.message}).`),
  );
  return pool;
}

/**
 * The config of the LISTEN connection: the store's server, named with a `-listen` suffix.
 *
 * @example
 * ```ts
 * new PgListener(pgListenerConfig(options, pool), handlers, onReconnect, logger);
 * ```
 */
export function pgListenerConfig(options: OpenStoreOptions, pool: pg.Pool): pg.ClientConfig {
  return {
    ...(options.url ? { connectionString: options.url } : pool.options),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: `${pgApplicationName(options)}-listen`,
  };
}

/**
 * Applies the migrations; on failure ends a pool the store owns and throws the mapped error, an unreachable server
 * named (never the credentials) with what to check.
 *
 * @example
 * ```ts
 * await migrateAtOpen(pool, true, "plant_store", options, resolved);
 * ```
 */
export async function migrateAtOpen(
  pool: pg.Pool,
  ownsPool: boolean,
  schema: string,
  options: OpenStoreOptions,
  resolved: ResolvedOptions,
): Promise<void> {
  try {
    await migratePg(pool, schema, { apply: resolved.migrate, now: resolved.now, logger: resolved.logger });
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => {});
    const mapped = mapPgError(error);
    if (mapped instanceof StoreUnavailableError && mapped.code === "store_unavailable") {
      const reason = String((error as { code?: unknown }).code ?? (error as Error).message);
      throw new StoreUnavailableError(
        `PostgreSQL at ${serverOf(options.url)} is unavailable (${reason}): check that it runs and accepts connections there, and the URL's host and port.`,
        { cause: error },
      );
    }
    throw mapped;
  }
}

/** `host:port` of a connection URL, for messages (never its user or password). */
function serverOf(url: string | undefined): string {
  try {
    const parsed = new URL(url ?? "");
    const host = parsed.hostname || new URLSearchParams(parsed.search).get("host") || "localhost";
    return `${host}:${parsed.port || 5432}`;
  } catch {
    return "the configured server";
  }
}
