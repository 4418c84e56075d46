import { DELIVERY_STATES } from "@plant-store/core";
import type { Page } from "../api/inbox.js";
import type { Delivery, DeliveryState, ListDeliveriesOptions, OutboxStats } from "../api/outbox.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { type DeliveryRow, toDelivery } from "../shared/rows.js";
import { checkDeliveryFilters } from "../shared/validate.js";
import type { SqliteContext } from "./context.js";
import { OLDEST_DUE, STATE_COUNTS } from "./outbox-sql.js";

/**
 * The SQLite outbox's `listDeliveries`: newest first, filtered by message, subscription or state, paged by id; with
 * `applicationId`, only deliveries to that application's subscriptions (a parameter of the query).
 *
 * @example
 * ```ts
 * const page = sqliteListDeliveries(ctx, { state: "failed", limit: 20 });
 * ```
 */
export function sqliteListDeliveries(
  ctx: SqliteContext,
  options: ListDeliveriesOptions = {},
  applicationId: string | null = null,
): Page<Delivery> {
  const limit = pageLimit(options.limit);
  const before = decodeCursor(options.cursor);
  const where: string[] = [];
  const params: unknown[] = [];
  if (applicationId !== null) {
    where.push("subscription_id IN (SELECT id FROM subscriptions WHERE application_id = ?)");
    params.push(applicationId);
  }
  for (const [column, value] of checkDeliveryFilters(options)) {
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (before !== null) {
    where.push("id < ?");
    params.push(before);
  }
  const rows = ctx
    .sql(
      `SELECT * FROM deliveries ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ?`,
    )
    .all(...params, limit + 1) as DeliveryRow[];
  const items = rows.slice(0, limit).map(toDelivery);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}

/**
 * The SQLite outbox's `stats`: depth by state from the transition counters, and the longest-waiting due row.
 *
 * @example
 * ```ts
 * const { pending, oldestDueAgeMs } = sqliteOutboxStats(ctx, Date.now());
 * ```
 */
export function sqliteOutboxStats(ctx: SqliteContext, at: number): OutboxStats {
  const counts = new Map(
    (ctx.sql(STATE_COUNTS).all() as { state: DeliveryState; n: number }[]).map((r) => [r.state, r.n]),
  );
  const oldest = ctx.sql(OLDEST_DUE).pluck().get(at) as number | undefined;
  const [pending, leased, delivered, failed] = DELIVERY_STATES.map((s) => counts.get(s) ?? 0) as [
    number,
    number,
    number,
    number,
  ];
  return {
    pending,
    leased,
    delivered,
    failed,
    oldestDueAt: oldest === undefined ? null : new Date(oldest),
    oldestDueAgeMs: oldest === undefined ? 0 : at - oldest,
  };
}
