import { createSecret } from "@plant-store/core";
import type { PoolClient } from "pg";
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
import { disabledPendingError } from "../shared/outcomes.js";
import { rotateStoredSecrets, storedSecrets } from "../shared/subscription-codec.js";
import { checkGraceMs } from "../shared/validate.js";
import { type PgContext, query, transaction } from "./context.js";
import { failPendingOfSql } from "./outbox-sql.js";

/**
 * PostgreSQL destinations: rows of the target table with `dst_` ids; read-modify-writes lock the row. Every change
 * here opens or closes this process's forward gate at once (another process's within its TTL).
 *
 * @example
 * ```ts
 * await createPgDestinations(ctx).create({ name: "orders", url: "http://orders.internal/hooks" });
 * ```
 */
export function createPgDestinations(ctx: PgContext): Destinations {
  const inTx = async <T>(work: (client: PoolClient) => Promise<T>, bulk = false): Promise<T> => {
    const result = await transaction(ctx, work, { bulk });
    ctx.forwardGate.invalidate();
    return result;
  };
  const one = (where: string, value: string, client?: PoolClient) => find(ctx, where, value, client);
  return {
    create: (input) => inTx((client) => create(ctx, client, input)),
    ensure: (input) => inTx((client) => ensure(ctx, client, input)),
    get: (id) => one("id = $1", id),
    getByName: (name) => one("name = $1", name),
    list: async () =>
      (
        await query<DestinationRow>(ctx, `SELECT * FROM ${ctx.s}.subscriptions WHERE ${IN_RANGE} ORDER BY id`)
      ).map((row) => decodeDestination(ctx.box, row)),
    update: (id, patch) => inTx((client) => update(ctx, client, id, patch)),
    pause: (id) => inTx((client) => setColumn(ctx, client, id, "paused = true")),
    resume: async (id) => {
      const resumed = await inTx((client) => setColumn(ctx, client, id, "paused = false"));
      await query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox]);
      return resumed;
    },
    rotateSecret: (id, secret, options = {}) =>
      inTx((client) => rotate(ctx, client, id, secret ?? createSecret(), checkGraceMs(options.graceMs))),
    disable: (id, reason) => inTx((client) => disable(ctx, client, id, String(reason)), true),
    enable: (id) =>
      inTx((client) =>
        setColumn(
          ctx,
          client,
          id,
          "enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL",
        ),
      ),
    delete: (id) =>
      inTx(
        async (client) =>
          (
            await query(
              ctx,
              `DELETE FROM ${ctx.s}.subscriptions WHERE id = $1 AND ${IN_RANGE} RETURNING id`,
              [id],
              client,
            )
          ).length > 0,
        true,
      ),
    stats: () => stats(ctx),
  };
}

const IN_RANGE = destinationRows("id");

async function find(
  ctx: PgContext,
  where: string,
  value: string,
  client?: PoolClient,
): Promise<Destination | null> {
  const lock = client ? " FOR UPDATE" : "";
  const [row] = await query<DestinationRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.subscriptions WHERE ${where} AND ${IN_RANGE}${lock}`,
    [value],
    client,
  );
  return row ? decodeDestination(ctx.box, row) : null;
}

async function mustGet(ctx: PgContext, client: PoolClient, id: string): Promise<Destination> {
  const found = await find(ctx, "id = $1", id, client);
  if (!found) throw destinationNotFound(id);
  return found;
}

/** A unique violation of the name index: the name was taken meanwhile. */
function mapNameTaken(name: string): (error: unknown) => never {
  return (error) => {
    const cause = (error as { cause?: { code?: unknown } }).cause ?? error;
    if ((cause as { code?: unknown }).code === "23505") throw nameTaken(name);
    throw error;
  };
}

/** The option columns as parameters, in the order the INSERT and the UPDATE list them. */
const optionParams = (c: DestinationColumns): unknown[] => [
  c.name,
  c.eventTypes,
  c.paused,
  c.ordered,
  c.maxInFlight,
  c.rateLimit,
  c.headers,
  c.timeoutMs,
  c.signing,
];

async function create(
  ctx: PgContext,
  client: PoolClient,
  input: CreateDestinationInput,
): Promise<Destination> {
  const id = newDestinationId(ctx.nextId);
  const at = ctx.options.now();
  const { columns, secrets } = newDestinationColumns(ctx.box, id, input, at);
  const taken = await find(ctx, "name = $1", columns.name, client);
  if (taken) throw nameTaken(columns.name);
  const [row] = await query<DestinationRow>(
    ctx,
    `INSERT INTO ${ctx.s}.subscriptions (id, url, token, secrets, created_at, updated_at, name, event_types, paused,
       ordered, max_in_flight, rate_limit, headers, timeout_ms, signing, application_id)
     VALUES ($1, $2, '', $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL) RETURNING *`,
    [id, columns.url, secrets, at, ...optionParams(columns)],
    client,
  ).catch(mapNameTaken(columns.name));
  return decodeDestination(ctx.box, row as DestinationRow);
}

async function update(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  patch: UpdateDestinationInput,
): Promise<Destination> {
  const columns = patchedDestinationColumns(await mustGet(ctx, client, id), patch);
  const [row] = await query<DestinationRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET url = $2, updated_at = $3, name = $4, event_types = $5, paused = $6,
       ordered = $7, max_in_flight = $8, rate_limit = $9, headers = $10, timeout_ms = $11, signing = $12
     WHERE id = $1 RETURNING *`,
    [id, columns.url, ctx.options.now(), ...optionParams(columns)],
    client,
  ).catch(mapNameTaken(columns.name));
  return decodeDestination(ctx.box, row as DestinationRow);
}

async function ensure(
  ctx: PgContext,
  client: PoolClient,
  input: CreateDestinationInput,
): Promise<Destination> {
  // One ensure at a time per database: two receivers starting together create the name once.
  await query(
    ctx,
    "SELECT pg_advisory_xact_lock(hashtext($1))",
    [`plant-store:destination:${input?.name}`],
    client,
  );
  const existing = await find(ctx, "name = $1", String(input?.name), client);
  if (!existing) return create(ctx, client, input);
  const patch = ensurePatch(existing, input);
  let updated = patch === null ? existing : await update(ctx, client, existing.id, patch);
  if (input.secret !== undefined && !signsWith(updated, input.secret, ctx.options.now())) {
    updated = await rotate(ctx, client, existing.id, input.secret, 0);
  }
  return updated;
}

async function setColumn(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  assignment: string,
): Promise<Destination> {
  await mustGet(ctx, client, id);
  const [row] = await query<DestinationRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET ${assignment}, updated_at = $2 WHERE id = $1 RETURNING *`,
    [id, ctx.options.now()],
    client,
  );
  return decodeDestination(ctx.box, row as DestinationRow);
}

async function rotate(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  secret: string,
  graceMs: number,
): Promise<Destination> {
  await mustGet(ctx, client, id);
  const [stored] = await query<{ secrets: string }>(
    ctx,
    `SELECT secrets::text AS secrets FROM ${ctx.s}.subscriptions WHERE id = $1`,
    [id],
    client,
  );
  const at = ctx.options.now();
  const secrets = rotateStoredSecrets(
    ctx.box,
    id,
    storedSecrets(stored?.secrets ?? "[]"),
    secret,
    at,
    graceMs,
  );
  const [row] = await query<DestinationRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET secrets = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
    [id, JSON.stringify(secrets), at],
    client,
  );
  return decodeDestination(ctx.box, row as DestinationRow);
}

async function disable(ctx: PgContext, client: PoolClient, id: string, reason: string): Promise<Destination> {
  await mustGet(ctx, client, id);
  const at = ctx.options.now();
  const [row] = await query<DestinationRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions
     SET enabled = false, disabled_reason = CASE WHEN enabled THEN $2 ELSE disabled_reason END,
         disabled_at = CASE WHEN enabled THEN $3 ELSE disabled_at END, updated_at = $3
     WHERE id = $1 RETURNING *`,
    [id, reason, at],
    client,
  );
  await query(ctx, failPendingOfSql(ctx.s), [[id], disabledPendingError(reason), at], client);
  return decodeDestination(ctx.box, row as DestinationRow);
}

async function stats(ctx: PgContext): Promise<DestinationStats[]> {
  const rows = await query<DestinationStatsRow>(
    ctx,
    `SELECT s.id,
       (SELECT count(*) FROM ${ctx.s}.deliveries d WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id) AS depth,
       (SELECT min(d.created_at) FROM ${ctx.s}.deliveries d
         WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id) AS oldest,
       (SELECT count(*) FROM ${ctx.s}.deliveries d WHERE d.state = 'failed' AND d.subscription_id = s.id) AS failed,
       (SELECT CASE WHEN d.attempts > 0 THEN coalesce(i.webhook_id, m.id) END
         FROM ${ctx.s}.deliveries d JOIN ${ctx.s}.messages m ON m.id = d.message_id
         LEFT JOIN ${ctx.s}.inbox_events i ON i.seq = m.inbox_seq
         WHERE d.state IN ('pending', 'leased') AND d.subscription_id = s.id AND s.ordered
         ORDER BY d.id LIMIT 1) AS blocked
     FROM ${ctx.s}.subscriptions s WHERE ${destinationRows("s.id")} ORDER BY s.id`,
  );
  return rows.map(toDestinationStats);
}
