import { createHash } from "node:crypto";
import { createMessageIdGenerator } from "@plant-store/core";
import pg from "pg";
import type { Store } from "../api/store.js";
import { StoreInputError, StoreUnavailableError } from "../errors.js";
import type { OpenStoreOptions, ResolvedOptions } from "../options.js";
import { Notifier } from "../shared/notifier.js";
import { purgeLimits } from "../shared/purge.js";
import type { SecretBox } from "../shared/secret-box.js";
import { mapPgError, type PgContext, transaction } from "./context.js";
import { PgListener } from "./listener.js";
import { migratePg, quoteIdent } from "./migrations.js";
import { createPgInbox } from "./pg-inbox.js";
import { createPgOutbox } from "./pg-outbox.js";
import { createPgSubscriptions } from "./pg-subscriptions.js";

/** NOTIFY channel names: short (identifiers stop at 63 bytes) and distinct per schema. */
export function pgChannels(schema: string): { inbox: string; outbox: string } {
  const tag = createHash("sha256").update(schema).digest("hex").slice(0, 12);
  return { inbox: `plant_store_${tag}_inbox`, outbox: `plant_store_${tag}_outbox` };
}

/**
 * Opens a PostgreSQL store: a pool (or the caller's), migrations under an advisory lock, and a
 * LISTEN connection started on first use.
 *
 * @example
 * ```ts
 * const store = await openPgStore({ url: "postgres://localhost/app", schema: "webhooks" }, resolveOptions({}), box);
 * ```
 */
export async function openPgStore(
  options: OpenStoreOptions,
  resolved: ResolvedOptions,
  box: SecretBox,
): Promise<Store> {
  const schema = options.schema ?? "plant_store";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreInputError(
      "invalid_schema",
      "schema must be a plain identifier (letters, digits, _; at most 63).",
    );
  }
  const ownsPool = options.pool === undefined;
  const applicationName = options.applicationName ?? "plant-store";
  const pool =
    options.pool ??
    new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      application_name: applicationName,
      // Bounded waits: a lock held elsewhere or a stalled server answers 503 (StoreUnavailableError), never a
      // request that hangs; a connection that stops answering is dropped (pool.query / transaction release it
      // with the error) and TCP keep-alive finds dead peers.
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
  if (ownsPool)
    pool.on("error", (error) =>
      resolved.logger.warn(`plant-store: idle PostgreSQL connection lost (${error.message}).`),
    );
  try {
    await migratePg(pool, schema, { apply: resolved.migrate, now: resolved.now, logger: resolved.logger });
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => {});
    const mapped = mapPgError(error);
    // At start the question is where: name the server (never the credentials) and what to check.
    if (mapped instanceof StoreUnavailableError && mapped.code === "store_unavailable") {
      const where = serverOf(options.url);
      throw new StoreUnavailableError(
        `PostgreSQL at ${where} is unavailable (${String((error as { code?: unknown }).code ?? (error as Error).message)}): check that it runs and accepts connections there, and the URL's host and port.`,
        { cause: error },
      );
    }
    throw mapped;
  }

  const channels = pgChannels(schema);
  const inboxSeqs = new Notifier<number[]>();
  const outboxWork = new Notifier<void>();
  const listenerConfig: pg.ClientConfig = {
    ...(options.url ? { connectionString: options.url } : pool.options),
    connectionTimeoutMillis: 5000,
    application_name: `${applicationName}-listen`,
  };
  const listener = new PgListener(
    listenerConfig,
    new Map([
      [channels.inbox, (payload: string) => inboxSeqs.emit(payload ? [Number(payload)] : [])],
      [channels.outbox, () => outboxWork.emit()],
    ]),
    () => {
      inboxSeqs.emit([]);
      outboxWork.emit();
    },
    resolved.logger,
  );
  const closing = new AbortController();
  const ctx: PgContext = {
    pool,
    s: quoteIdent(schema),
    channels,
    options: resolved,
    box,
    closed: closing.signal,
    inboxSeqs,
    outboxWork,
    listener,
    nextId: createMessageIdGenerator({ now: resolved.now }),
  };
  const inbox = createPgInbox(ctx);
  const outbox = createPgOutbox(ctx);
  let closed: Promise<void> | undefined;

  return {
    backend: "postgres",
    inbox,
    subscriptions: createPgSubscriptions(ctx),
    outbox,
    // Readiness means a write can proceed: take (and at once release) the lock every insert and update takes.
    // It waits `lock_timeout` behind a table lock, and fails on a read-only standby after a failover.
    async ping() {
      await transaction(ctx, async (client) => {
        await client.query(
          `LOCK TABLE ${ctx.s}.inbox_events, ${ctx.s}.messages, ${ctx.s}.deliveries IN ROW EXCLUSIVE MODE`,
        );
      });
    },
    async purge(options) {
      const { before, batchSize } = purgeLimits(options);
      const inboxEvents = await ctx.pool
        .query(
          `DELETE FROM ${ctx.s}.inbox_events WHERE seq IN
             (SELECT seq FROM ${ctx.s}.inbox_events WHERE received_at < $1 ORDER BY seq LIMIT $2)`,
          [before, batchSize],
        )
        .then(
          (r) => r.rowCount ?? 0,
          (error: unknown) => Promise.reject(mapPgError(error)),
        );
      // Deliveries and their attempts go with their message (ON DELETE CASCADE).
      const messages = await ctx.pool
        .query(
          `DELETE FROM ${ctx.s}.messages WHERE id IN
             (SELECT m.id FROM ${ctx.s}.messages m WHERE m.created_at < $1 AND NOT EXISTS
                (SELECT 1 FROM ${ctx.s}.deliveries d WHERE d.message_id = m.id AND d.state IN ('pending', 'leased'))
              ORDER BY m.id LIMIT $2)`,
          [before, batchSize],
        )
        .then(
          (r) => r.rowCount ?? 0,
          (error: unknown) => Promise.reject(mapPgError(error)),
        );
      return { inboxEvents, messages, more: inboxEvents === batchSize || messages === batchSize };
    },
    close() {
      closed ??= (async () => {
        await inbox.drain();
        await outbox.drain();
        closing.abort();
        await listener.stop();
        if (ownsPool) await pool.end();
      })();
      return closed;
    },
  };
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
