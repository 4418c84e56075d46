import { createHash } from "node:crypto";
import type { Pool, PoolClient, QueryConfig } from "pg";
import type { SqlClient } from "../api/outbox.js";
import { StoreError, StoreUnavailableError, storeClosedError } from "../errors.js";
import type { ResolvedOptions } from "../options.js";
import type { ForwardGate } from "../shared/forward-gate.js";
import type { Notifier } from "../shared/notifier.js";
import type { RateLimitedGate } from "../shared/rate-limited-gate.js";
import type { SecretBox } from "../shared/secret-box.js";
import { holdClient } from "./held-client.js";
import type { PgListener } from "./listener.js";

/** What the PostgreSQL inbox, subscriptions and outbox share. */
export interface PgContext {
  pool: Pool;
  /** The quoted schema, to prefix every table. */
  s: string;
  channels: { inbox: string; outbox: string };
  options: ResolvedOptions;
  box: SecretBox;
  closed: AbortSignal;
  inboxSeqs: Notifier<number[]>;
  outboxWork: Notifier<void>;
  /** Whether the inbox's writes look for destinations to forward to. */
  forwardGate: ForwardGate;
  /** Which sender subscriptions have a rate limit (their rows go to the options claim). */
  rateGate: RateLimitedGate;
  listener: PgListener;
  nextId: () => string;
}

// SQLSTATE classes/codes that mean "the database cannot serve us right now" (connection lost,
// shutting down, out of resources, read-only standby after a failover, deadlock/serialization, and our own
// bounds: statement_timeout 57014, lock_timeout 55P03).
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-4]|58|40001|40P01|25006|57014|55P03)/;
const UNAVAILABLE_NODE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "EHOSTUNREACH",
]);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Cannot use a pool after calling end|Client was closed|Query read timeout/i;

/** Maps a pg error to a `StoreError`; store errors pass through. */
export function mapPgError(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown })?.code;
  const message = (error as Error)?.message ?? String(error);
  if (
    (typeof code === "string" && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE.has(code))) ||
    UNAVAILABLE_MESSAGE.test(message) ||
    error instanceof AggregateError
  ) {
    return new StoreUnavailableError(
      `PostgreSQL is unavailable (${typeof code === "string" ? code : message}).`,
      { cause: error },
    );
  }
  return new StoreError("store_error", `PostgreSQL failed: ${message}`, { cause: error });
}

/**
 * A statement prepared on each connection the first time it runs there, by a name derived from its text: later runs
 * send only the values (no parse, no analysis), and after five runs PostgreSQL may keep a generic plan instead of
 * planning each run (about a millisecond for the claim and the outcome statement). For the hot path's statements,
 * on the store's own connections (a caller's transaction client gets plain text).
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** `text` as a {@link PreparedStatement}. */
export function prepared(text: string): PreparedStatement {
  return { name: `plant_store_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`, text };
}

/**
 * Runs one statement (on `client` if given, else the pool) and returns its rows; errors mapped.
 *
 * @example
 * ```ts
 * const [row] = await query<{ n: string }>(ctx, `SELECT count(*) AS n FROM ${ctx.s}.inbox_events`);
 * ```
 */
export async function query<T = Record<string, unknown>>(
  ctx: PgContext,
  text: string | PreparedStatement,
  values?: unknown[],
  client?: SqlClient | PoolClient,
): Promise<T[]> {
  if (ctx.closed.aborted) throw storeClosedError();
  try {
    const on = (client ?? ctx.pool) as Pool;
    if (typeof text === "string") return (await on.query(text, values)).rows as T[];
    return (await on.query(values ? { ...text, values } : text)).rows as T[];
  } catch (error) {
    throw mapPgError(error);
  }
}

/** The client-side read timeout of a bulk transaction's statements (they have no statement_timeout). */
const BULK_READ_TIMEOUT_MS = 10 * 60_000;

function isReadTimeout(error: unknown): boolean {
  const raw = (error as { cause?: unknown })?.cause ?? error;
  return raw instanceof Error && raw.message === "Query read timeout";
}

/**
 * Runs `work` in BEGIN … COMMIT on one pooled connection; rolls back on error. `bulk` is for statements whose cost
 * grows with the backlog (failing a subscription's pending deliveries, deleting one, recovering its failures): no
 * `statement_timeout` and a 10-minute read timeout, where a bounded one would fail them every time they are needed
 * most. Lock waits stay bounded by `lock_timeout`. `begin` replaces the opening `BEGIN` (one round trip, simple
 * protocol: `BEGIN; SET LOCAL …` for settings of this transaction only).
 */
export async function transaction<T>(
  ctx: PgContext,
  work: (client: PoolClient) => Promise<T>,
  options: { bulk?: boolean; begin?: string } = {},
): Promise<T> {
  if (ctx.closed.aborted) throw storeClosedError();
  let held: Awaited<ReturnType<typeof holdClient>>;
  try {
    held = await holdClient(ctx.pool);
  } catch (error) {
    throw mapPgError(error);
  }
  const { client } = held;
  let broken: Error | undefined;
  try {
    await client.query(options.begin ?? "BEGIN");
    let target = client;
    if (options.bulk) {
      await client.query("SET LOCAL statement_timeout = 0");
      const unbounded = (text: string | QueryConfig, values?: unknown[]) =>
        client.query({
          ...(typeof text === "string" ? { text } : text),
          values: values ?? (typeof text === "string" ? undefined : text.values),
          query_timeout: BULK_READ_TIMEOUT_MS,
        } as QueryConfig);
      target = Object.create(client, { query: { value: unbounded } }) as PoolClient;
    }
    const result = await work(target);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that stopped answering (client-side read timeout) is dropped, not rolled back and reused.
    if (isReadTimeout(error)) broken = error as Error;
    else {
      await client.query("ROLLBACK").catch((e: Error) => {
        broken = e;
      });
    }
    throw mapPgError(error);
  } finally {
    held.release(broken);
  }
}
