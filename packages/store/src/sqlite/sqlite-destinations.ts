import { createSecret } from "@plant-store/core";
import type {
  CreateDestinationInput,
  Destination,
  DestinationStats,
  Destinations,
  UpdateDestinationInput,
} from "../api/destinations.js";
import {
  type DestinationColumns,
  type DestinationRow,
  type DestinationStatsRow,
  decodeDestination,
  destinationNotFound,
  destinationRows,
  ensurePatch,
  nameTaken,
  newDestinationColumns,
  newDestinationId,
  patchedDestinationColumns,
  signsWith,
  toDestinationStats,
} from "../shared/destination-rules.js";
import { rotateStoredSecrets, storedSecrets } from "../shared/subscription-codec.js";
import { checkGraceMs } from "../shared/validate.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { disableSubscription } from "./disable-subscription.js";
import { LAST_INBOX_SEQ, PROCESS_RELEASED, UNFINISHED_FORWARD_SEQS, UNTAKEN_OF } from "./outbox-sql.js";

const IN_RANGE = destinationRows("id");

/**
 * SQLite destinations: rows of the target table with `dst_` ids (shared/target-scope.ts); their secrets sealed by
 * the store's secret box. Every change opens or closes the inbox's forward gate at once.
 *
 * @example
 * ```ts
 * const destinations = createSqliteDestinations(ctx);
 * await destinations.create({ name: "orders", url: "http://orders.internal/hooks" });
 * ```
 */
export function createSqliteDestinations(ctx: SqliteContext): Destinations {
  const run = <T>(work: () => T): Promise<T> =>
    runSqlite(ctx, () => {
      const result = work();
      ctx.forwardGate.invalidate();
      return result;
    });
  const deleteNow = ctx.db.transaction((id: string) => remove(ctx, id));
  const disableNow = ctx.db.transaction((id: string, reason: string) => {
    mustGet(ctx, id);
    disableSubscription(ctx, id, reason, ctx.options.now());
    return current(ctx, id);
  });
  const ensureNow = ctx.db.transaction((input: CreateDestinationInput) => ensure(ctx, input));
  return {
    create: (input) => run(() => create(ctx, input)),
    ensure: (input) => run(() => ensureNow.immediate(input)),
    get: (id) => runSqlite(ctx, () => find(ctx, "id = ?", id)),
    getByName: (name) => runSqlite(ctx, () => find(ctx, "name = ?", name)),
    list: () =>
      runSqlite(ctx, () =>
        (ctx.sql(`SELECT * FROM subscriptions WHERE ${IN_RANGE} ORDER BY id`).all() as DestinationRow[]).map(
          (row) => decodeDestination(ctx.box, row),
        ),
      ),
    update: (id, patch) => run(() => update(ctx, id, patch)),
    pause: (id) => run(() => setPaused(ctx, id, true)),
    resume: (id) =>
      run(() => {
        const resumed = setPaused(ctx, id, false);
        ctx.outboxWork.emit();
        return resumed;
      }),
    rotateSecret: (id, secret, options = {}) =>
      run(() => rotate(ctx, id, secret ?? createSecret(), checkGraceMs(options.graceMs))),
    disable: (id, reason) => run(() => disableNow.immediate(id, String(reason))),
    enable: (id) =>
      run(() => {
        mustGet(ctx, id);
        ctx
          .sql(
            `UPDATE subscriptions SET enabled = 1, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
             updated_at = ? WHERE id = ?`,
          )
          .run(ctx.options.now(), id);
        return current(ctx, id);
      }),
    delete: (id) => run(() => deleteNow.immediate(id)),
    stats: () => runSqlite(ctx, () => stats(ctx)),
  };
}

/**
 * Deletes a destination (its deliveries go with it) and marks processed the events it was the last one to hold back:
 * those it had not taken or not finished whose every other forward is delivered (the processed trigger runs on a
 * delivery's outcome only, so nothing else would).
 */
function remove(ctx: SqliteContext, id: string): boolean {
  const cursor = ctx
    .sql(`SELECT forward_seq FROM subscriptions WHERE id = ? AND ${IN_RANGE}`)
    .raw(true)
    .get(id) as [number | null] | undefined;
  if (cursor === undefined) return false;
  const held = JSON.stringify(ctx.sql(UNFINISHED_FORWARD_SEQS).pluck().all(id));
  ctx.sql("DELETE FROM subscriptions WHERE id = ?").run(id);
  ctx.sql(PROCESS_RELEASED).run({ held, cursor: cursor[0], now: ctx.options.now() });
  return true;
}

function find(ctx: SqliteContext, where: string, value: string): Destination | null {
  const row = ctx.sql(`SELECT * FROM subscriptions WHERE ${where} AND ${IN_RANGE}`).get(value) as
    | DestinationRow
    | undefined;
  return row ? decodeDestination(ctx.box, row) : null;
}

function mustGet(ctx: SqliteContext, id: string): Destination {
  const found = find(ctx, "id = ?", id);
  if (!found) throw destinationNotFound(id);
  return found;
}

const current = mustGet;

function checkNameFree(ctx: SqliteContext, name: string, id: string | null): void {
  const holder = ctx.sql("SELECT id FROM subscriptions WHERE name = ?").pluck().get(name) as
    | string
    | undefined;
  if (holder !== undefined && holder !== id) throw nameTaken(name);
}

function create(ctx: SqliteContext, input: CreateDestinationInput): Destination {
  const id = newDestinationId(ctx.nextId);
  const at = ctx.options.now();
  const { columns, secrets } = newDestinationColumns(ctx.box, id, input, at);
  checkNameFree(ctx, columns.name, null);
  ctx
    .sql(
      `INSERT INTO subscriptions (id, url, token, secrets, created_at, updated_at, name, event_types, paused, ordered,
         max_in_flight, rate_limit, headers, timeout_ms, signing, application_id, forward_seq)
       VALUES (?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, (${LAST_INBOX_SEQ}))`,
    )
    .run(id, columns.url, secrets, at, at, ...optionValues(columns));
  return current(ctx, id);
}

/** The option columns in the order both statements list them (after url, secrets and times). */
function optionValues(columns: DestinationColumns): unknown[] {
  return [
    columns.name,
    columns.eventTypes === null ? null : JSON.stringify(columns.eventTypes),
    columns.paused ? 1 : 0,
    columns.ordered ? 1 : 0,
    columns.maxInFlight,
    columns.rateLimit,
    columns.headers,
    columns.timeoutMs,
    columns.signing,
  ];
}

function update(ctx: SqliteContext, id: string, patch: UpdateDestinationInput): Destination {
  const columns = patchedDestinationColumns(mustGet(ctx, id), patch);
  checkNameFree(ctx, columns.name, id);
  ctx
    .sql(
      `UPDATE subscriptions SET url = ?, updated_at = ?, name = ?, event_types = ?, paused = ?, ordered = ?,
         max_in_flight = ?, rate_limit = ?, headers = ?, timeout_ms = ?, signing = ? WHERE id = ?`,
    )
    .run(columns.url, ctx.options.now(), ...optionValues(columns), id);
  return current(ctx, id);
}

/** `--forward-to`: the destination by name, created, or its url (and signing and secret when given) brought up to date. */
function ensure(ctx: SqliteContext, input: CreateDestinationInput): Destination {
  const existing = find(ctx, "name = ?", String(input?.name));
  if (!existing) return create(ctx, input);
  const patch = ensurePatch(existing, input);
  let updated = patch === null ? existing : update(ctx, existing.id, patch);
  if (input.secret !== undefined && !signsWith(updated, input.secret, ctx.options.now())) {
    updated = rotate(ctx, existing.id, input.secret, 0);
  }
  return updated;
}

function setPaused(ctx: SqliteContext, id: string, paused: boolean): Destination {
  mustGet(ctx, id);
  ctx
    .sql("UPDATE subscriptions SET paused = ?, updated_at = ? WHERE id = ?")
    .run(paused ? 1 : 0, ctx.options.now(), id);
  return current(ctx, id);
}

function rotate(ctx: SqliteContext, id: string, secret: string, graceMs: number): Destination {
  mustGet(ctx, id);
  const stored = storedSecrets(
    ctx.sql("SELECT secrets FROM subscriptions WHERE id = ?").pluck().get(id) as string,
  );
  const at = ctx.options.now();
  const secrets = rotateStoredSecrets(ctx.box, id, stored, secret, at, graceMs);
  ctx
    .sql("UPDATE subscriptions SET secrets = ?, updated_at = ? WHERE id = ?")
    .run(JSON.stringify(secrets), at, id);
  return current(ctx, id);
}

/**
 * Each destination's depth, lag and failures, through the due index and the failures' partial index. Depth and lag
 * count the events it has not taken yet (after its cursor, of its types: decision 45) with its unfinished rows.
 */
function stats(ctx: SqliteContext): DestinationStats[] {
  const rows = ctx
    .sql(
      `SELECT s.id, s.forward_seq, s.event_types,
         (SELECT count(*) FROM deliveries d INDEXED BY deliveries_due_idx
           WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id) AS depth,
         (SELECT min(d.created_at) FROM deliveries d INDEXED BY deliveries_due_idx
           WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id) AS oldest,
         (SELECT count(*) FROM deliveries d WHERE d.state = 'failed' AND d.subscription_id = s.id) AS failed,
         (SELECT CASE WHEN d.attempts > 0 THEN coalesce(i.webhook_id, m.id) END
           FROM deliveries d INDEXED BY deliveries_due_idx JOIN messages m ON m.id = d.message_id
           LEFT JOIN inbox_events i ON i.seq = m.inbox_seq
           WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id AND s.ordered = 1
           ORDER BY d.id LIMIT 1) AS blocked
       FROM subscriptions s WHERE ${destinationRows("s.id")} ORDER BY s.id`,
    )
    .all() as (DestinationStatsRow & { forward_seq: number | null; event_types: string | null })[];
  for (const row of rows) {
    if (row.forward_seq === null) continue;
    const untaken = ctx.sql(UNTAKEN_OF).get({ cursor: row.forward_seq, types: row.event_types }) as {
      n: number;
      oldest: number | null;
    };
    row.depth = Number(row.depth) + untaken.n;
    if (untaken.oldest !== null && (row.oldest === null || untaken.oldest < Number(row.oldest))) {
      row.oldest = untaken.oldest;
    }
  }
  return rows.map(toDestinationStats);
}
