import type { Page } from "../api/inbox.js";
import type { Delivery, DeliveryState, ListDeliveriesOptions, OutboxStats } from "../api/outbox.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { type DeliveryRow, toDelivery } from "../shared/rows.js";
import { checkDeliveryFilters } from "../shared/validate.js";
import { type PgContext, query } from "./context.js";
import { compactCountsSql, oldestDueSql, stateCountsSql } from "./outbox-sql.js";

/**
 * The PostgreSQL outbox's `listDeliveries`: newest first, filtered by message, subscription or state, paged by id;
 * with `applicationId`, only deliveries to that application's subscriptions (a parameter of the query).
 *
 * @example
 * ```ts
 * const page = await pgListDeliveries(ctx, { state: "failed", limit: 20 });
 * ```
 */
export async function pgListDeliveries(
  ctx: PgContext,
  options: ListDeliveriesOptions = {},
  applicationId: string | null = null,
): Promise<Page<Delivery>> {
  const limit = pageLimit(options.limit);
  const before = decodeCursor(options.cursor);
  const where: string[] = [];
  const params: unknown[] = [limit + 1];
  if (applicationId !== null) {
    params.push(applicationId);
    where.push(
      `subscription_id IN (SELECT id FROM ${ctx.s}.subscriptions WHERE application_id = $${params.length})`,
    );
  }
  for (const [column, value] of checkDeliveryFilters(options)) {
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (before !== null) {
    params.push(before);
    where.push(`id < $${params.length}`);
  }
  const rows = await query<DeliveryRow>(
    ctx,
    `SELECT * FROM ${ctx.s}.deliveries ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT $1`,
    params,
  );
  const items = rows.slice(0, limit).map(toDelivery);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}

/**
 * The PostgreSQL outbox's `stats`: depth by state from the folded counters, and the longest-waiting due row.
 *
 * @example
 * ```ts
 * const { pending, oldestDueAgeMs } = await pgOutboxStats(ctx);
 * ```
 */
export async function pgOutboxStats(ctx: PgContext): Promise<OutboxStats> {
  const { s } = ctx;
  await query(ctx, compactCountsSql(s));
  const at = ctx.options.now();
  const rows = await query<{ state: DeliveryState; n: string }>(ctx, stateCountsSql(s));
  const counts = new Map(rows.map((r) => [r.state, Number(r.n)]));
  const [oldest] = await query<{ due_at: string }>(ctx, oldestDueSql(s), [at]);
  const oldestDueAt = oldest ? Number(oldest.due_at) : null;
  return {
    pending: counts.get("pending") ?? 0,
    leased: counts.get("leased") ?? 0,
    delivered: counts.get("delivered") ?? 0,
    failed: counts.get("failed") ?? 0,
    oldestDueAt: oldestDueAt === null ? null : new Date(oldestDueAt),
    oldestDueAgeMs: oldestDueAt === null ? 0 : at - oldestDueAt,
  };
}
