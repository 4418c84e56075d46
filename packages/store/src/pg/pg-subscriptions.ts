import type { PoolClient } from "pg";
import type {
  CreateSubscriptionInput,
  Subscription,
  Subscriptions,
  UpdateSubscriptionInput,
} from "../api/subscriptions.js";
import { applicationNotFound, DEFAULT_APPLICATION_ID, uidConflict } from "../shared/application-rules.js";
import type { DisabledCause } from "../shared/operational.js";
import { disabledPendingError } from "../shared/outcomes.js";
import {
  decodeSubscription,
  rotateStoredSecrets,
  type SubscriptionRow,
  storedSecrets,
} from "../shared/subscription-codec.js";
import {
  createdColumns,
  failingReason,
  newSubscriptionId,
  patchedColumns,
  subscriptionNotFound,
} from "../shared/subscription-rules.js";
import { scopeSql } from "../shared/target-scope.js";
import { checkGraceMs } from "../shared/validate.js";
import { type PgContext, query, transaction } from "./context.js";
import { failPendingOfSql } from "./outbox-sql.js";
import { reportDisabled } from "./pg-operational.js";

/** The sender's subscriptions among the targets (`sub_…`, shared/target-scope.ts): destinations are not its. */
const SENDER = scopeSql("id", "sender");

/**
 * PostgreSQL subscriptions. Read-modify-write updates lock the row (`FOR UPDATE`) so concurrent
 * rotations do not lose a secret.
 *
 * @example
 * ```ts
 * await createPgSubscriptions(ctx).disableFailing(5 * 24 * 3600_000);
 * ```
 */
export function createPgSubscriptions(ctx: PgContext): Subscriptions {
  return {
    create: (input) => limitChange(ctx, input, createSubscription(ctx, input)),
    get: (id) => getSubscription(ctx, id),
    list: (options = {}) => listSubscriptions(ctx, options.enabled),
    update: (id, patch) =>
      limitChange(
        ctx,
        patch,
        transaction(ctx, (client) => updateSubscription(ctx, client, id, patch)),
      ),
    rotateSecret: (id, secret, options = {}) =>
      transaction(ctx, (client) => rotateSecret(ctx, client, id, secret, checkGraceMs(options.graceMs))),
    disable: (id, reason) =>
      transaction(ctx, (client) => disable(ctx, client, id, String(reason), ctx.options.now(), "manual"), {
        bulk: true,
      }),
    enable: (id) => transaction(ctx, (client) => enable(ctx, client, id)),
    // Cascades over the subscription's deliveries and attempts: a bulk statement.
    delete: (id) => transaction(ctx, (client) => deleteSubscription(ctx, client, id), { bulk: true }),
    disableFailing: (forMs, reason) => disableFailing(ctx, forMs, reason),
  };
}

/** A change that may set or clear a rate limit: this process's claims look at the limits again after it. */
function limitChange<T>(ctx: PgContext, input: { rateLimit?: unknown }, change: Promise<T>): Promise<T> {
  if (input?.rateLimit === undefined) return change;
  return change.finally(() => ctx.rateGate.invalidate());
}

/** Decodes the row a statement returned (`RETURNING *` of a row known to exist). */
const decodeReturned = (ctx: PgContext, rows: SubscriptionRow[]): Subscription =>
  decodeSubscription(ctx.box, rows[0] as SubscriptionRow);

async function createSubscription(ctx: PgContext, input: CreateSubscriptionInput): Promise<Subscription> {
  const id = newSubscriptionId(ctx.nextId);
  const at = ctx.options.now();
  const columns = createdColumns(ctx.box, id, input, at);
  const applicationId = input.applicationId ?? DEFAULT_APPLICATION_ID;
  // The application is checked by the INSERT itself: no row is written when it does not exist.
  const rows = await query<SubscriptionRow>(
    ctx,
    `INSERT INTO ${ctx.s}.subscriptions (id, url, token, secrets, enabled, event_types, created_at, updated_at, signing,
       application_id, uid, description, metadata, rate_limit, headers)
     SELECT $1, $2, $3, $4, $5, $7, $6, $6, $8, a.id, $10, $11, $12, $13, $14 FROM ${ctx.s}.applications a WHERE a.id = $9
     RETURNING *`,
    [
      id,
      columns.url,
      columns.token,
      columns.secrets,
      input.enabled !== false,
      at,
      columns.eventTypes,
      columns.signing,
      applicationId,
      columns.uid,
      columns.description,
      columns.metadata,
      columns.rateLimit,
      columns.headers,
    ],
  ).catch((error: unknown) => {
    throw uidConflict(error, "subscription");
  });
  if (rows.length === 0) throw applicationNotFound(applicationId);
  return decodeReturned(ctx, rows);
}

async function getSubscription(ctx: PgContext, id: string): Promise<Subscription | null> {
  const [row] = await query<SubscriptionRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.subscriptions WHERE id = $1 AND ${SENDER}`,
    [id],
  );
  return row ? decodeSubscription(ctx.box, row) : null;
}

async function listSubscriptions(ctx: PgContext, enabled: boolean | undefined): Promise<Subscription[]> {
  const rows =
    enabled === undefined
      ? await query<SubscriptionRow>(ctx, `SELECT * FROM ${ctx.s}.subscriptions WHERE ${SENDER} ORDER BY id`)
      : await query<SubscriptionRow>(
          ctx,
          `SELECT * FROM ${ctx.s}.subscriptions WHERE enabled = $1 AND ${SENDER} ORDER BY id`,
          [enabled],
        );
  return rows.map((row) => decodeSubscription(ctx.box, row));
}

/** The row, locked for the rest of the transaction; `not_found` if it does not exist. */
async function locked(ctx: PgContext, client: PoolClient, id: string): Promise<SubscriptionRow> {
  const [row] = await query<SubscriptionRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.subscriptions WHERE id = $1 AND ${SENDER} FOR UPDATE`,
    [id],
    client,
  );
  if (!row) throw subscriptionNotFound(id);
  return row;
}

async function updateSubscription(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  patch: UpdateSubscriptionInput,
): Promise<Subscription> {
  const current = await locked(ctx, client, id);
  const at = ctx.options.now();
  const columns = patchedColumns(ctx.box, current, patch, at);
  const rows = await query<SubscriptionRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET url = $2, token = $3, secrets = $4, updated_at = $5, event_types = $6, signing = $7,
       uid = $8, description = $9, metadata = $10, rate_limit = $11, headers = $12
     WHERE id = $1 RETURNING *`,
    [
      id,
      columns.url,
      columns.token,
      columns.secrets,
      at,
      columns.eventTypes,
      columns.signing,
      columns.uid,
      columns.description,
      columns.metadata,
      columns.rateLimit,
      columns.headers,
    ],
    client,
  ).catch((error: unknown) => {
    throw uidConflict(error, "subscription");
  });
  return decodeReturned(ctx, rows);
}

async function rotateSecret(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  secret: string,
  graceMs: number,
): Promise<Subscription> {
  const current = await locked(ctx, client, id);
  const at = ctx.options.now();
  const secrets = rotateStoredSecrets(ctx.box, id, storedSecrets(current.secrets), secret, at, graceMs);
  const rows = await query<SubscriptionRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET secrets = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
    [id, JSON.stringify(secrets), at],
    client,
  );
  return decodeReturned(ctx, rows);
}

/**
 * Disables it (the first reason and time stay) and fails its pending deliveries; when it was enabled,
 * `subscription.disabled` for `cause` is published in the same transaction (docs/decisions.md D36).
 */
async function disable(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  reason: string,
  at: number,
  cause: DisabledCause,
): Promise<Subscription> {
  const before = await locked(ctx, client, id);
  const rows = await query<SubscriptionRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions
     SET enabled = false, disabled_reason = CASE WHEN enabled THEN $2 ELSE disabled_reason END,
         disabled_at = CASE WHEN enabled THEN $3 ELSE disabled_at END, updated_at = $3
     WHERE id = $1 RETURNING *`,
    [id, reason, at],
    client,
  );
  // Pending deliveries would never be claimed usefully; fail them so `recover` can bring them back.
  await query(ctx, failPendingOfSql(ctx.s), [[id], disabledPendingError(reason), at], client);
  if (before.enabled) await reportDisabled(ctx, client, rows[0] as SubscriptionRow, cause, at);
  return decodeReturned(ctx, rows);
}

async function enable(ctx: PgContext, client: PoolClient, id: string): Promise<Subscription> {
  await locked(ctx, client, id);
  const rows = await query<SubscriptionRow>(
    ctx,
    `UPDATE ${ctx.s}.subscriptions SET enabled = true, disabled_reason = NULL, disabled_at = NULL,
       failing_since = NULL, updated_at = $2 WHERE id = $1 RETURNING *`,
    [id, ctx.options.now()],
    client,
  );
  return decodeReturned(ctx, rows);
}

async function deleteSubscription(ctx: PgContext, client: PoolClient, id: string): Promise<boolean> {
  const rows = await query(
    ctx,
    `DELETE FROM ${ctx.s}.subscriptions WHERE id = $1 AND ${SENDER} RETURNING id`,
    [id],
    client,
  );
  return rows.length > 0;
}

/** Each candidate in a transaction of its own, re-checked under its row lock. */
async function disableFailing(ctx: PgContext, forMs: number, reason: string | undefined): Promise<string[]> {
  const at = ctx.options.now();
  const ids = (
    await query<{ id: string }>(
      ctx,
      `SELECT id FROM ${ctx.s}.subscriptions WHERE enabled AND failing_since <= $1 AND ${SENDER} ORDER BY id`,
      [at - forMs],
    )
  ).map((r) => r.id);
  const why = failingReason(forMs, reason);
  const disabled: string[] = [];
  for (const id of ids) {
    const done = await transaction(
      ctx,
      async (client) => {
        // Re-checked under the row lock: a success may have ended the streak since the SELECT.
        const row = await locked(ctx, client, id);
        if (!row.enabled || row.failing_since === null || Number(row.failing_since) > at - forMs)
          return false;
        await disable(ctx, client, id, why, at, "failing");
        return true;
      },
      { bulk: true },
    );
    if (done) disabled.push(id);
  }
  return disabled;
}
