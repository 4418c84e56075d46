import type { Subscription, Subscriptions } from "../api/subscriptions.js";
import { StoreConflictError } from "../errors.js";
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
import { runSqlite, type SqliteContext } from "./context.js";
import { disableSubscription } from "./disable-subscription.js";

/** The longest rotation grace (Stripe's maximum too): the old secret must stop signing at a real time. */

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
  const { box } = ctx;
  const now = () => ctx.options.now();
  const row = (id: string) =>
    ctx.sql("SELECT * FROM subscriptions WHERE id = ?").get(id) as SubscriptionRow | undefined;
  const mustGet = (id: string): SubscriptionRow => {
    const found = row(id);
    if (!found)
      throw new StoreConflictError("not_found", `Subscription ${JSON.stringify(id)} does not exist.`);
    return found;
  };
  const decode = (r: SubscriptionRow): Subscription => decodeSubscription(box, r);

  const disable = ctx.db.transaction((id: string, reason: string, at: number) => {
    mustGet(id);
    disableSubscription(ctx, id, reason, at);
    return decode(mustGet(id));
  });

  return {
    create: (input) =>
      runSqlite(ctx, () => {
        const id = `sub_${ctx.nextId().slice(4)}`;
        const at = now();
        ctx
          .sql(
            `INSERT INTO subscriptions (id, url, token, secrets, signing, enabled, event_types, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            id,
            checkUrl(input.url),
            sealToken(box, id, input.token),
            JSON.stringify(sealSecrets(box, id, input.secrets ?? [], at)),
            checkSigning(input.signing, "symmetric"),
            input.enabled === false ? 0 : 1,
            jsonOrNull(checkEventTypes(input.eventTypes)),
            at,
            at,
          );
        return decode(mustGet(id));
      }),
    get: (id) =>
      runSqlite(ctx, () => {
        const found = row(id);
        return found ? decode(found) : null;
      }),
    list: (options = {}) =>
      runSqlite(ctx, () => {
        const rows =
          options.enabled === undefined
            ? ctx.sql("SELECT * FROM subscriptions ORDER BY id").all()
            : ctx
                .sql("SELECT * FROM subscriptions WHERE enabled = ? ORDER BY id")
                .all(options.enabled ? 1 : 0);
        return (rows as SubscriptionRow[]).map(decode);
      }),
    update: (id, patch) =>
      runSqlite(ctx, () => {
        const current = mustGet(id);
        const at = now();
        ctx
          .sql(
            "UPDATE subscriptions SET url = ?, token = ?, secrets = ?, event_types = ?, signing = ?, updated_at = ? WHERE id = ?",
          )
          .run(
            patch.url === undefined ? current.url : checkUrl(patch.url),
            patch.token === undefined ? current.token : sealToken(box, id, patch.token),
            patch.secrets === undefined
              ? JSON.stringify(storedSecrets(current.secrets))
              : JSON.stringify(sealSecrets(box, id, patch.secrets, at)),
            patch.eventTypes === undefined
              ? current.event_types
              : jsonOrNull(checkEventTypes(patch.eventTypes)),
            checkSigning(patch.signing, current.signing),
            at,
            id,
          );
        return decode(mustGet(id));
      }),
    rotateSecret: (id, secret, options = {}) =>
      runSqlite(ctx, () => {
        const graceMs = checkGraceMs(options.graceMs);
        const current = mustGet(id);
        const at = now();
        const secrets = rotateStoredSecrets(box, id, storedSecrets(current.secrets), secret, at, graceMs);
        ctx
          .sql("UPDATE subscriptions SET secrets = ?, updated_at = ? WHERE id = ?")
          .run(JSON.stringify(secrets), at, id);
        return decode(mustGet(id));
      }),
    disable: (id, reason) => runSqlite(ctx, () => disable.immediate(id, String(reason), now())),
    enable: (id) =>
      runSqlite(ctx, () => {
        mustGet(id);
        ctx
          .sql(
            `UPDATE subscriptions SET enabled = 1, disabled_reason = NULL, disabled_at = NULL,
               failing_since = NULL, updated_at = ? WHERE id = ?`,
          )
          .run(now(), id);
        return decode(mustGet(id));
      }),
    delete: (id) =>
      runSqlite(ctx, () => ctx.sql("DELETE FROM subscriptions WHERE id = ?").run(id).changes > 0),
    disableFailing: (forMs, reason) =>
      runSqlite(ctx, () => {
        const at = now();
        const ids = ctx
          .sql("SELECT id FROM subscriptions WHERE enabled = 1 AND failing_since <= ? ORDER BY id")
          .pluck()
          .all(at - forMs) as string[];
        const why = reason ?? `failing continuously for more than ${Math.round(forMs / 1000)} s`;
        for (const id of ids) disable.immediate(id, why, at);
        return ids;
      }),
  };
}

const jsonOrNull = (types: string[] | null): string | null => (types === null ? null : JSON.stringify(types));
