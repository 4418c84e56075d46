import type Database from "better-sqlite3";
import type { Delivery, DeliveryState } from "../api/outbox.js";
import { checkRecoverable, checkResendable } from "../shared/redelivery-guards.js";
import { type DeliveryRow, toDelivery } from "../shared/rows.js";
import type { SqliteContext } from "./context.js";
import { RECOVER_FAILED_OF } from "./outbox-sql.js";

/**
 * The SQLite outbox's `resend` and `recover`, as transactions to run `.immediate(...)`: each checks the shared guards
 * before it moves a delivery (or a subscription's failed deliveries) back to pending, due now.
 *
 * @example
 * ```ts
 * const { resend, recover } = sqliteRedelivery(ctx);
 * resend.immediate(42, Date.now());
 * ```
 */
export function sqliteRedelivery(ctx: SqliteContext): {
  resend: Database.Transaction<(id: number, at: number) => Delivery>;
  recover: Database.Transaction<(subscriptionId: string, since: number, at: number) => number>;
} {
  const resend = ctx.db.transaction((id: number, at: number): Delivery => {
    const row = ctx
      .sql(
        `SELECT d.state, s.enabled FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.id = ?`,
      )
      .get(id) as { state: DeliveryState; enabled: number } | undefined;
    checkResendable(id, row && { state: row.state, enabled: row.enabled === 1 });
    ctx
      .sql(
        `UPDATE deliveries SET state = 'pending', due_at = ?, attempts = 0, finished_at = NULL, updated_at = ?
         WHERE id = ?`,
      )
      .run(at, at, id);
    return toDelivery(ctx.sql("SELECT * FROM deliveries WHERE id = ?").get(id) as DeliveryRow);
  });
  const recover = ctx.db.transaction((subscriptionId: string, since: number, at: number): number => {
    const enabled = ctx.sql("SELECT enabled FROM subscriptions WHERE id = ?").pluck().get(subscriptionId) as
      | number
      | undefined;
    checkRecoverable(subscriptionId, enabled === undefined ? undefined : enabled === 1);
    return ctx.sql(RECOVER_FAILED_OF).run(at, at, subscriptionId, since).changes;
  });
  return { resend, recover };
}
