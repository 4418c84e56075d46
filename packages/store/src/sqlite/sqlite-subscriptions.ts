import type {
  CreateSubscriptionInput,
  Subscription,
  Subscriptions,
  UpdateSubscriptionInput,
} from "../api/subscriptions.js";
import { applicationNotFound, DEFAULT_APPLICATION_ID, uidConflict } from "../shared/application-rules.js";
import type { DisabledCause } from "../shared/operational.js";
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
  type SubscriptionColumns,
  subscriptionNotFound,
} from "../shared/subscription-rules.js";
import { scopeSql } from "../shared/target-scope.js";
import { checkGraceMs } from "../shared/validate.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { disableSubscription } from "./disable-subscription.js";

/** The sender's subscriptions among the targets (`sub_…`, shared/target-scope.ts): destinations are not its. */
const SENDER = scopeSql("id", "sender");

/**
 * SQLite subscriptions; credentials sealed by the store's secret box.
 *
 * @example
 * ```ts
 * const subs = createSqliteSubscriptions(ctx);
 * await subs.create({ url: "https://example.com/hook", token: "psk_…" });
 * ```
 */
export function createSqliteSubscriptions(ctx: SqliteContext): Subscriptions {
  const disableNow = ctx.db.transaction(disable);
  return {
    create: (input) => runSqlite(ctx, () => limitChange(ctx, input, () => createSubscription(ctx, input))),
    get: (id) => runSqlite(ctx, () => getSubscription(ctx, id)),
    list: (options = {}) => runSqlite(ctx, () => listSubscriptions(ctx, options.enabled)),
    update: (id, patch) =>
      runSqlite(ctx, () => limitChange(ctx, patch, () => updateSubscription(ctx, id, patch))),
    rotateSecret: (id, secret, options = {}) =>
      runSqlite(ctx, () => rotateSecret(ctx, id, secret, checkGraceMs(options.graceMs))),
    disable: (id, reason) =>
      runSqlite(ctx, () => disableNow.immediate(ctx, id, String(reason), ctx.options.now(), "manual")),
    enable: (id) => runSqlite(ctx, () => enable(ctx, id)),
    delete: (id) =>
      runSqlite(
        ctx,
        () => ctx.sql(`DELETE FROM subscriptions WHERE id = ? AND ${SENDER}`).run(id).changes > 0,
      ),
    disableFailing: (forMs, reason) =>
      runSqlite(ctx, () => {
        const at = ctx.options.now();
        const ids = failingSince(ctx, at - forMs);
        const why = failingReason(forMs, reason);
        for (const id of ids) disableNow.immediate(ctx, id, why, at, "failing");
        return ids;
      }),
  };
}

/** A change that may set or clear a rate limit: this process's claims look at the limits again after it. */
function limitChange<T>(ctx: SqliteContext, input: { rateLimit?: unknown }, change: () => T): T {
  try {
    return change();
  } finally {
    if (input?.rateLimit !== undefined) ctx.rateGate.invalidate();
  }
}

function row(ctx: SqliteContext, id: string): SubscriptionRow | undefined {
  return ctx.sql(`SELECT * FROM subscriptions WHERE id = ? AND ${SENDER}`).get(id) as
    | SubscriptionRow
    | undefined;
}

/** The row; `not_found` if it does not exist. */
function mustGet(ctx: SqliteContext, id: string): SubscriptionRow {
  const found = row(ctx, id);
  if (!found) throw subscriptionNotFound(id);
  return found;
}

/** The public subscription as stored now. */
const current = (ctx: SqliteContext, id: string): Subscription =>
  decodeSubscription(ctx.box, mustGet(ctx, id));

/** SQLite keeps the event type filter as JSON text. */
const jsonOrNull = (types: string[] | null): string | null => (types === null ? null : JSON.stringify(types));

function createSubscription(ctx: SqliteContext, input: CreateSubscriptionInput): Subscription {
  const id = newSubscriptionId(ctx.nextId);
  const at = ctx.options.now();
  const columns = createdColumns(ctx.box, id, input, at);
  const applicationId = input.applicationId ?? DEFAULT_APPLICATION_ID;
  if (!ctx.sql("SELECT 1 FROM applications WHERE id = ?").get(applicationId))
    throw applicationNotFound(applicationId);
  try {
    insertSubscription(ctx, id, applicationId, columns, input.enabled !== false, at);
  } catch (error) {
    throw uidConflict(error, "subscription");
  }
  return current(ctx, id);
}

function insertSubscription(
  ctx: SqliteContext,
  id: string,
  applicationId: string,
  columns: SubscriptionColumns,
  enabled: boolean,
  at: number,
): void {
  ctx
    .sql(
      `INSERT INTO subscriptions (id, url, token, secrets, signing, enabled, event_types, created_at, updated_at,
         application_id, uid, description, metadata, rate_limit, headers)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      columns.url,
      columns.token,
      columns.secrets,
      columns.signing,
      enabled ? 1 : 0,
      jsonOrNull(columns.eventTypes),
      at,
      at,
      applicationId,
      columns.uid,
      columns.description,
      columns.metadata,
      columns.rateLimit,
      columns.headers,
    );
}

function getSubscription(ctx: SqliteContext, id: string): Subscription | null {
  const found = row(ctx, id);
  return found ? decodeSubscription(ctx.box, found) : null;
}

function listSubscriptions(ctx: SqliteContext, enabled: boolean | undefined): Subscription[] {
  const rows =
    enabled === undefined
      ? ctx.sql(`SELECT * FROM subscriptions WHERE ${SENDER} ORDER BY id`).all()
      : ctx
          .sql(`SELECT * FROM subscriptions WHERE enabled = ? AND ${SENDER} ORDER BY id`)
          .all(enabled ? 1 : 0);
  return (rows as SubscriptionRow[]).map((found) => decodeSubscription(ctx.box, found));
}

function updateSubscription(ctx: SqliteContext, id: string, patch: UpdateSubscriptionInput): Subscription {
  const stored = mustGet(ctx, id);
  const at = ctx.options.now();
  const columns = patchedColumns(ctx.box, stored, patch, at);
  try {
    ctx
      .sql(
        `UPDATE subscriptions SET url = ?, token = ?, secrets = ?, event_types = ?, signing = ?, updated_at = ?,
           uid = ?, description = ?, metadata = ?, rate_limit = ?, headers = ? WHERE id = ?`,
      )
      .run(
        columns.url,
        columns.token,
        columns.secrets,
        jsonOrNull(columns.eventTypes),
        columns.signing,
        at,
        columns.uid,
        columns.description,
        columns.metadata,
        columns.rateLimit,
        columns.headers,
        id,
      );
  } catch (error) {
    throw uidConflict(error, "subscription");
  }
  return current(ctx, id);
}

function rotateSecret(ctx: SqliteContext, id: string, secret: string, graceMs: number): Subscription {
  const stored = storedSecrets(mustGet(ctx, id).secrets);
  const at = ctx.options.now();
  const secrets = rotateStoredSecrets(ctx.box, id, stored, secret, at, graceMs);
  ctx
    .sql("UPDATE subscriptions SET secrets = ?, updated_at = ? WHERE id = ?")
    .run(JSON.stringify(secrets), at, id);
  return current(ctx, id);
}

/**
 * Disables it and fails its pending deliveries (run as one transaction), publishing `subscription.disabled` for
 * `cause` in it. A subscription already disabled has none: its deliveries were failed then, and a disabled one gets
 * no new ones.
 */
function disable(
  ctx: SqliteContext,
  id: string,
  reason: string,
  at: number,
  cause: DisabledCause,
): Subscription {
  mustGet(ctx, id);
  disableSubscription(ctx, id, reason, at, cause);
  return current(ctx, id);
}

function enable(ctx: SqliteContext, id: string): Subscription {
  mustGet(ctx, id);
  ctx
    .sql(
      `UPDATE subscriptions SET enabled = 1, disabled_reason = NULL, disabled_at = NULL,
         failing_since = NULL, updated_at = ? WHERE id = ?`,
    )
    .run(ctx.options.now(), id);
  return current(ctx, id);
}

/** The enabled subscriptions failing since `since` or earlier. */
function failingSince(ctx: SqliteContext, since: number): string[] {
  return ctx
    .sql(`SELECT id FROM subscriptions WHERE enabled = 1 AND failing_since <= ? AND ${SENDER} ORDER BY id`)
    .pluck()
    .all(since) as string[];
}
