import type { PoolClient } from "pg";
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
import { type PgContext, query, transaction } from "./context.js";
import { publishOperational } from "./pg-operational.js";
import { pgListDeliveries } from "./pg-outbox-reads.js";

/**
 * PostgreSQL applications, their portal tokens, and reads scoped to one application.
 *
 * @example
 * ```ts
 * const apps = createPgApplications(ctx);
 * await apps.create({ uid: "cust_42", name: "Acme" });
 * ```
 */
export function createPgApplications(ctx: PgContext): Applications {
  const { s } = ctx;
  return {
    create: (input) => createApplication(ctx, input),
    get: async (idOrUid) => {
      const [row] = await query<ApplicationRow>(
        ctx,
        `SELECT * FROM ${s}.applications WHERE id = $1 OR uid = $1`,
        [idOrUid],
      );
      return row ? toApplication(row) : null;
    },
    list: async () =>
      (await query<ApplicationRow>(ctx, `SELECT * FROM ${s}.applications ORDER BY created_at, id`)).map(
        toApplication,
      ),
    update: (id, patch) => transaction(ctx, (client) => updateApplication(ctx, client, id, patch)),
    // Cascades over the subscriptions' deliveries and attempts: a bulk statement.
    delete: (id) => transaction(ctx, (client) => deleteApplication(ctx, client, id), { bulk: true }),
    listDeletions: async (options = {}) =>
      (
        await query<DeletionRow>(ctx, `SELECT * FROM ${s}.application_deletions ORDER BY seq DESC LIMIT $1`, [
          pageLimit(options.limit),
        ])
      ).map(toDeletedApplication),
    createPortalToken: async (id, options = {}) => {
      const ttl = checkPortalTtl(options.ttlMs);
      const { token, hash } = newPortalToken();
      const at = ctx.options.now();
      const rows = await query(
        ctx,
        `INSERT INTO ${s}.portal_tokens (hash, application_id, epoch, expires_at, created_at)
         SELECT $1, id, portal_epoch, $3, $4 FROM ${s}.applications WHERE id = $2 RETURNING hash`,
        [hash, id, at + ttl, at],
      );
      if (rows.length === 0) throw applicationNotFound(id);
      return { token, applicationId: id, expiresAt: new Date(at + ttl) };
    },
    revokePortalTokens: (id) => transaction(ctx, (client) => revoke(ctx, client, id)),
    verifyPortalToken: (token) => verifyPortalToken(ctx, token),
    reads: (id) => pgApplicationReads(ctx, id),
  };
}

async function createApplication(ctx: PgContext, input: CreateApplicationInput): Promise<Application> {
  const columns = createdApplication(input);
  const at = ctx.options.now();
  const rows = await query<ApplicationRow>(
    ctx,
    `INSERT INTO ${ctx.s}.applications (id, uid, name, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING *`,
    [newApplicationId(ctx.nextId), columns.uid, columns.name, columns.metadata, at],
  ).catch((error: unknown) => {
    throw uidConflict(error, "application");
  });
  return toApplication(rows[0] as ApplicationRow);
}

async function updateApplication(
  ctx: PgContext,
  client: PoolClient,
  id: string,
  patch: UpdateApplicationInput,
): Promise<Application> {
  const [current] = await query<ApplicationRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.applications WHERE id = $1 FOR UPDATE`,
    [id],
    client,
  );
  if (!current) throw applicationNotFound(id);
  const columns = patchedApplication(toApplication(current), patch);
  const rows = await query<ApplicationRow>(
    ctx,
    `UPDATE ${ctx.s}.applications SET uid = $2, name = $3, metadata = $4, updated_at = $5 WHERE id = $1 RETURNING *`,
    [id, columns.uid, columns.name, columns.metadata, ctx.options.now()],
    client,
  ).catch((error: unknown) => {
    throw uidConflict(error, "application");
  });
  return toApplication(rows[0] as ApplicationRow);
}

async function deleteApplication(
  ctx: PgContext,
  client: PoolClient,
  id: string,
): Promise<DeletedApplication | null> {
  checkDeletable(id);
  const { s } = ctx;
  const [row] = await query<ApplicationRow>(
    ctx,
    `SELECT * FROM ${s}.applications WHERE id = $1 FOR UPDATE`,
    [id],
    client,
  );
  if (!row) return null;
  const subscriptions = (
    await query(ctx, `DELETE FROM ${s}.subscriptions WHERE application_id = $1 RETURNING id`, [id], client)
  ).length;
  // Portal tokens go with the row (ON DELETE CASCADE).
  await query(ctx, `DELETE FROM ${s}.applications WHERE id = $1`, [id], client);
  const deletedAt = ctx.options.now();
  await query(
    ctx,
    `INSERT INTO ${s}.application_deletions (id, uid, name, subscriptions, deleted_at) VALUES ($1, $2, $3, $4, $5)`,
    [id, row.uid, row.name, subscriptions, deletedAt],
    client,
  );
  const data = { applicationId: id, uid: row.uid, name: row.name, subscriptions };
  await publishOperational(ctx, client, "application.deleted", data, deletedAt);
  return { id, uid: row.uid, name: row.name, subscriptions, deletedAt: new Date(deletedAt) };
}

async function revoke(ctx: PgContext, client: PoolClient, id: string): Promise<void> {
  const rows = await query(
    ctx,
    `UPDATE ${ctx.s}.applications SET portal_epoch = portal_epoch + 1, updated_at = $2 WHERE id = $1 RETURNING id`,
    [id, ctx.options.now()],
    client,
  );
  if (rows.length === 0) throw applicationNotFound(id);
  await query(ctx, `DELETE FROM ${ctx.s}.portal_tokens WHERE application_id = $1`, [id], client);
}

async function verifyPortalToken(ctx: PgContext, token: string) {
  const hash = portalTokenHash(token);
  if (hash === null) return null;
  const [row] = await query<PortalTokenRow>(
    ctx,
    `SELECT t.hash, t.application_id, t.expires_at FROM ${ctx.s}.portal_tokens t
     JOIN ${ctx.s}.applications a ON a.id = t.application_id AND a.portal_epoch = t.epoch
     WHERE t.hash = $1 AND t.expires_at > $2`,
    [hash, ctx.options.now()],
  );
  return portalGrant(row, hash);
}

/** Every statement takes the application id as a parameter: another application's rows are never read. */
function pgApplicationReads(ctx: PgContext, applicationId: string): ApplicationReads {
  const { s } = ctx;
  return {
    applicationId,
    listSubscriptions: async (options = {}) => {
      const rows =
        options.enabled === undefined
          ? await query<SubscriptionRow>(
              ctx,
              `SELECT * FROM ${s}.subscriptions WHERE application_id = $1 ORDER BY id`,
              [applicationId],
            )
          : await query<SubscriptionRow>(
              ctx,
              `SELECT * FROM ${s}.subscriptions WHERE application_id = $1 AND enabled = $2 ORDER BY id`,
              [applicationId, options.enabled],
            );
      return rows.map((row) => decodeSubscription(ctx.box, row));
    },
    getSubscription: async (id) => {
      const [row] = await query<SubscriptionRow>(
        ctx,
        `SELECT * FROM ${s}.subscriptions WHERE id = $1 AND application_id = $2`,
        [id, applicationId],
      );
      return row ? decodeSubscription(ctx.box, row) : null;
    },
    getDelivery: async (id) => {
      const [row] = await query<DeliveryRow>(
        ctx,
        `SELECT d.* FROM ${s}.deliveries d JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
         WHERE d.id = $1 AND sub.application_id = $2`,
        [id, applicationId],
      );
      return row ? toDelivery(row) : null;
    },
    listDeliveries: (options) => pgListDeliveries(ctx, options, applicationId),
    getMessage: async (id) => {
      const [row] = await query<MessageRow>(
        ctx,
        `SELECT m.* FROM ${s}.messages m WHERE m.id = $1 AND (m.application_id = $2 OR EXISTS (
           SELECT 1 FROM ${s}.deliveries d JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
           WHERE d.message_id = m.id AND sub.application_id = $2))`,
        [id, applicationId],
      );
      return row ? toMessage(row) : null;
    },
  };
}
