import type {
  Application,
  ApplicationReads,
  Applications,
  CreateApplicationInput,
  DeletedApplication,
  UpdateApplicationInput,
} from "../api/applications.js";
import {
  type ApplicationRow,
  applicationNotFound,
  checkDeletable,
  checkPortalTtl,
  createdApplication,
  type DeletionRow,
  newApplicationId,
  newPortalToken,
  type PortalTokenRow,
  patchedApplication,
  portalGrant,
  portalTokenHash,
  toApplication,
  toDeletedApplication,
  uidConflict,
} from "../shared/application-rules.js";
import { pageLimit } from "../shared/cursor.js";
import { type DeliveryRow, type MessageRow, toDelivery, toMessage } from "../shared/rows.js";
import { decodeSubscription, type SubscriptionRow } from "../shared/subscription-codec.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { publishOperational } from "./sqlite-operational.js";
import { sqliteListDeliveries } from "./sqlite-outbox-reads.js";

/**
 * SQLite applications, their portal tokens, and reads scoped to one application.
 *
 * @example
 * ```ts
 * const apps = createSqliteApplications(ctx);
 * await apps.create({ uid: "cust_42", name: "Acme" });
 * ```
 */
export function createSqliteApplications(ctx: SqliteContext): Applications {
  const run = <T>(work: () => T) => runSqlite(ctx, work);
  const remove = ctx.db.transaction((id: string) => deleteApplication(ctx, id));
  return {
    create: (input) => run(() => createApplication(ctx, input)),
    get: (idOrUid) => run(() => find(ctx, idOrUid)),
    list: () =>
      run(() =>
        (ctx.sql("SELECT * FROM applications ORDER BY created_at, id").all() as ApplicationRow[]).map(
          toApplication,
        ),
      ),
    update: (id, patch) => run(() => updateApplication(ctx, id, patch)),
    delete: (id) => run(() => remove.immediate(id)),
    listDeletions: (options = {}) =>
      run(() =>
        (
          ctx
            .sql("SELECT * FROM application_deletions ORDER BY seq DESC LIMIT ?")
            .all(pageLimit(options.limit)) as DeletionRow[]
        ).map(toDeletedApplication),
      ),
    createPortalToken: (id, options = {}) =>
      run(() => {
        const ttl = checkPortalTtl(options.ttlMs);
        const epoch = ctx.sql("SELECT portal_epoch FROM applications WHERE id = ?").pluck().get(id);
        if (epoch === undefined) throw applicationNotFound(id);
        const { token, hash } = newPortalToken();
        const at = ctx.options.now();
        ctx
          .sql(
            "INSERT INTO portal_tokens (hash, application_id, epoch, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
          )
          .run(hash, id, epoch, at + ttl, at);
        return { token, applicationId: id, expiresAt: new Date(at + ttl) };
      }),
    revokePortalTokens: (id) =>
      run(() => {
        const at = ctx.options.now();
        const changed = ctx
          .sql("UPDATE applications SET portal_epoch = portal_epoch + 1, updated_at = ? WHERE id = ?")
          .run(at, id).changes;
        if (changed === 0) throw applicationNotFound(id);
        ctx.sql("DELETE FROM portal_tokens WHERE application_id = ?").run(id);
      }),
    verifyPortalToken: (token) => run(() => verifyPortalToken(ctx, token)),
    reads: (id) => sqliteApplicationReads(ctx, id),
  };
}

function find(ctx: SqliteContext, idOrUid: string): Application | null {
  const row = ctx.sql("SELECT * FROM applications WHERE id = ? OR uid = ?").get(idOrUid, idOrUid) as
    | ApplicationRow
    | undefined;
  return row ? toApplication(row) : null;
}

function createApplication(ctx: SqliteContext, input: CreateApplicationInput): Application {
  const columns = createdApplication(input);
  const id = newApplicationId(ctx.nextId);
  const at = ctx.options.now();
  try {
    ctx
      .sql(
        "INSERT INTO applications (id, uid, name, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(id, columns.uid, columns.name, columns.metadata, at, at);
  } catch (error) {
    throw uidConflict(error, "application");
  }
  return find(ctx, id) as Application;
}

function updateApplication(ctx: SqliteContext, id: string, patch: UpdateApplicationInput): Application {
  const current = ctx.sql("SELECT * FROM applications WHERE id = ?").get(id) as ApplicationRow | undefined;
  if (!current) throw applicationNotFound(id);
  const columns = patchedApplication(toApplication(current), patch);
  try {
    ctx
      .sql("UPDATE applications SET uid = ?, name = ?, metadata = ?, updated_at = ? WHERE id = ?")
      .run(columns.uid, columns.name, columns.metadata, ctx.options.now(), id);
  } catch (error) {
    throw uidConflict(error, "application");
  }
  return find(ctx, id) as Application;
}

/**
 * Run as one IMMEDIATE transaction: the subscriptions (deliveries and attempts cascade), tokens, the row, the record
 * and `application.deleted`.
 */
function deleteApplication(ctx: SqliteContext, id: string): DeletedApplication | null {
  checkDeletable(id);
  const row = ctx.sql("SELECT * FROM applications WHERE id = ?").get(id) as ApplicationRow | undefined;
  if (!row) return null;
  const subscriptions = ctx.sql("DELETE FROM subscriptions WHERE application_id = ?").run(id).changes;
  ctx.sql("DELETE FROM portal_tokens WHERE application_id = ?").run(id);
  ctx.sql("DELETE FROM applications WHERE id = ?").run(id);
  const deletedAt = ctx.options.now();
  ctx
    .sql(
      "INSERT INTO application_deletions (id, uid, name, subscriptions, deleted_at) VALUES (?, ?, ?, ?, ?)",
    )
    .run(id, row.uid, row.name, subscriptions, deletedAt);
  const data = { applicationId: id, uid: row.uid, name: row.name, subscriptions };
  publishOperational(ctx, "application.deleted", data, deletedAt);
  return { id, uid: row.uid, name: row.name, subscriptions, deletedAt: new Date(deletedAt) };
}

function verifyPortalToken(ctx: SqliteContext, token: string) {
  const hash = portalTokenHash(token);
  if (hash === null) return null;
  const row = ctx
    .sql(
      `SELECT t.hash, t.application_id, t.expires_at FROM portal_tokens t
       JOIN applications a ON a.id = t.application_id AND a.portal_epoch = t.epoch
       WHERE t.hash = ? AND t.expires_at > ?`,
    )
    .get(hash, ctx.options.now()) as PortalTokenRow | undefined;
  return portalGrant(row, hash);
}

/** Every statement takes the application id as a parameter: another application's rows are never read. */
function sqliteApplicationReads(ctx: SqliteContext, applicationId: string): ApplicationReads {
  const run = <T>(work: () => T) => runSqlite(ctx, work);
  return {
    applicationId,
    listSubscriptions: (options = {}) =>
      run(() => {
        const rows =
          options.enabled === undefined
            ? ctx.sql("SELECT * FROM subscriptions WHERE application_id = ? ORDER BY id").all(applicationId)
            : ctx
                .sql("SELECT * FROM subscriptions WHERE application_id = ? AND enabled = ? ORDER BY id")
                .all(applicationId, options.enabled ? 1 : 0);
        return (rows as SubscriptionRow[]).map((row) => decodeSubscription(ctx.box, row));
      }),
    getSubscription: (id) =>
      run(() => {
        const row = ctx
          .sql("SELECT * FROM subscriptions WHERE id = ? AND application_id = ?")
          .get(id, applicationId);
        return row ? decodeSubscription(ctx.box, row as SubscriptionRow) : null;
      }),
    getDelivery: (id) =>
      run(() => {
        const row = ctx
          .sql(
            `SELECT d.* FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
             WHERE d.id = ? AND s.application_id = ?`,
          )
          .get(id, applicationId) as DeliveryRow | undefined;
        return row ? toDelivery(row) : null;
      }),
    listDeliveries: (options) => run(() => sqliteListDeliveries(ctx, options, applicationId)),
    getMessage: (id) =>
      run(() => {
        const row = ctx
          .sql(
            `SELECT m.* FROM messages m WHERE m.id = ? AND (m.application_id = ? OR EXISTS (
               SELECT 1 FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
               WHERE d.message_id = m.id AND s.application_id = ?))`,
          )
          .get(id, applicationId, applicationId) as MessageRow | undefined;
        return row ? toMessage(row) : null;
      }),
  };
}
