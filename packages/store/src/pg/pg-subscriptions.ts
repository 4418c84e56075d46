import type { PoolClient } from "pg";
import type { Subscription, Subscriptions } from "../api/subscriptions.js";
import { StoreConflictError } from "../errors.js";
import { disabledPendingError } from "../shared/outcomes.js";
import {
  checkSigning,
  decodeSubscription,
  rotateStoredSecrets,
  type SubscriptionRow,
  sealSecrets,
  sealToken,
  storedSecrets,
} from "../shared/subscription-codec.js";
import { checkEventTypes, checkGraceMs, checkUrl } from "../shared/validate.js";
import { type PgContext, query, transaction } from "./context.js";
import { failPendingOfSql } from "./outbox-sql.js";

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
  const { s, box } = ctx;
  const now = () => ctx.options.now();
  const decode = (row: SubscriptionRow): Subscription => decodeSubscription(box, row);
  const locked = async (client: PoolClient, id: string): Promise<SubscriptionRow> => {
    const [row] = await query<SubscriptionRow>(
      ctx,
      `SELECT * FROM ${s}.subscriptions WHERE id = $1 FOR UPDATE`,
      [id],
      client,
    );
    if (!row) throw new StoreConflictError("not_found", `Subscription ${JSON.stringify(id)} does not exist.`);
    return row;
  };
  const disable = async (
    client: PoolClient,
    id: string,
    reason: string,
    at: number,
  ): Promise<Subscription> => {
    await locked(client, id);
    const [row] = await query<SubscriptionRow>(
      ctx,
      `UPDATE ${s}.subscriptions
       SET enabled = false, disabled_reason = CASE WHEN enabled THEN $2 ELSE disabled_reason END,
           disabled_at = CASE WHEN enabled THEN $3 ELSE disabled_at END, updated_at = $3
       WHERE id = $1 RETURNING *`,
      [id, reason, at],
      client,
    );
    // Pending deliveries would never be claimed usefully; fail them so `recover` can bring them back.
    await query(ctx, failPendingOfSql(s), [[id], disabledPendingError(reason), at], client);
    return decode(row as SubscriptionRow);
  };

  return {
    async create(input) {
      const id = `sub_${ctx.nextId().slice(4)}`;
      const at = now();
      const [row] = await query<SubscriptionRow>(
        ctx,
        `INSERT INTO ${s}.subscriptions (id, url, token, secrets, enabled, event_types, created_at, updated_at, signing)
         VALUES ($1, $2, $3, $4, $5, $7, $6, $6, $8) RETURNING *`,
        [
          id,
          checkUrl(input.url),
          sealToken(box, id, input.token),
          JSON.stringify(sealSecrets(box, id, input.secrets ?? [], at)),
          input.enabled !== false,
          at,
          checkEventTypes(input.eventTypes),
          checkSigning(input.signing, "symmetric"),
        ],
      );
      return decode(row as SubscriptionRow);
    },
    async get(id) {
      const [row] = await query<SubscriptionRow>(ctx, `SELECT * FROM ${s}.subscriptions WHERE id = $1`, [id]);
      return row ? decode(row) : null;
    },
    async list(options = {}) {
      const rows =
        options.enabled === undefined
          ? await query<SubscriptionRow>(ctx, `SELECT * FROM ${s}.subscriptions ORDER BY id`)
          : await query<SubscriptionRow>(
              ctx,
              `SELECT * FROM ${s}.subscriptions WHERE enabled = $1 ORDER BY id`,
              [options.enabled],
            );
      return rows.map(decode);
    },
    update: (id, patch) =>
      transaction(ctx, async (client) => {
        const current = await locked(client, id);
        const at = now();
        const [row] = await query<SubscriptionRow>(
          ctx,
          `UPDATE ${s}.subscriptions SET url = $2, token = $3, secrets = $4, updated_at = $5, event_types = $6, signing = $7
           WHERE id = $1 RETURNING *`,
          [
            id,
            patch.url === undefined ? current.url : checkUrl(patch.url),
            patch.token === undefined ? current.token : sealToken(box, id, patch.token),
            JSON.stringify(
              patch.secrets === undefined
                ? storedSecrets(current.secrets)
                : sealSecrets(box, id, patch.secrets, at),
            ),
            at,
            patch.eventTypes === undefined ? current.event_types : checkEventTypes(patch.eventTypes),
            checkSigning(patch.signing, current.signing),
          ],
          client,
        );
        return decode(row as SubscriptionRow);
      }),
    rotateSecret: (id, secret, options = {}) =>
      transaction(ctx, async (client) => {
        const graceMs = checkGraceMs(options.graceMs);
        const current = await locked(client, id);
        const at = now();
        const secrets = rotateStoredSecrets(box, id, storedSecrets(current.secrets), secret, at, graceMs);
        const [row] = await query<SubscriptionRow>(
          ctx,
          `UPDATE ${s}.subscriptions SET secrets = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
          [id, JSON.stringify(secrets), at],
          client,
        );
        return decode(row as SubscriptionRow);
      }),
    disable: (id, reason) =>
      transaction(ctx, (client) => disable(client, id, String(reason), now()), { bulk: true }),
    enable: (id) =>
      transaction(ctx, async (client) => {
        await locked(client, id);
        const [row] = await query<SubscriptionRow>(
          ctx,
          `UPDATE ${s}.subscriptions SET enabled = true, disabled_reason = NULL, disabled_at = NULL,
             failing_since = NULL, updated_at = $2 WHERE id = $1 RETURNING *`,
          [id, now()],
          client,
        );
        return decode(row as SubscriptionRow);
      }),
    // Cascades over the subscription's deliveries and attempts: a bulk statement.
    delete: (id) =>
      transaction(
        ctx,
        async (client) =>
          (await query(ctx, `DELETE FROM ${s}.subscriptions WHERE id = $1 RETURNING id`, [id], client))
            .length > 0,
        { bulk: true },
      ),
    async disableFailing(forMs, reason) {
      const at = now();
      const ids = (
        await query<{ id: string }>(
          ctx,
          `SELECT id FROM ${s}.subscriptions WHERE enabled AND failing_since <= $1 ORDER BY id`,
          [at - forMs],
        )
      ).map((r) => r.id);
      const why = reason ?? `failing continuously for more than ${Math.round(forMs / 1000)} s`;
      const disabled: string[] = [];
      for (const id of ids) {
        const done = await transaction(
          ctx,
          async (client) => {
            // Re-checked under the row lock: a success may have ended the streak since the SELECT.
            const row = await locked(client, id);
            if (!row.enabled || row.failing_since === null || Number(row.failing_since) > at - forMs)
              return false;
            await disable(client, id, why, at);
            return true;
          },
          { bulk: true },
        );
        if (done) disabled.push(id);
      }
      return disabled;
    },
  };
}
