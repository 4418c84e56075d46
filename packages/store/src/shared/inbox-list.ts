import type { InboxEvent, InboxListOptions, Page } from "../api/inbox.js";
import { decodeCursor, encodeCursor, pageLimit, pageMaxBytes } from "./cursor.js";
import { checkEventType } from "./validate.js";

/** One page query of `inbox.list()`, checked: its row limit, byte bound, and WHERE clause with its parameters. */
export interface InboxListQuery {
  limit: number;
  maxBytes: number | undefined;
  /** `""` or `WHERE …` over `inbox_events`. */
  where: string;
  /** The values of the placeholders in `where`, in order. */
  params: unknown[];
}

/**
 * Checks `inbox.list()`'s options and builds its filter; `placeholder(n)` spells the backend's n-th (1-based)
 * parameter of the filter (`?` on SQLite, `$n` on PostgreSQL).
 *
 * @example
 * ```ts
 * inboxListQuery({ processed: false, type: "newPlant" }, () => "?").where;
 * // "WHERE event_type = ? AND processed_at IS NULL"
 * ```
 */
export function inboxListQuery(
  options: InboxListOptions,
  placeholder: (n: number) => string,
): InboxListQuery {
  const limit = pageLimit(options.limit);
  const before = decodeCursor(options.cursor);
  const type = options.type === undefined ? undefined : checkEventType(options.type, "");
  const params: unknown[] = [];
  const conditions = [
    before === null ? "" : `seq < ${placeholder(params.push(before))}`,
    type === undefined ? "" : `event_type = ${placeholder(params.push(type))}`,
    processedCondition(options.processed),
  ].filter(Boolean);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
  return { limit, maxBytes: pageMaxBytes(options.maxBytes), where, params };
}

/**
 * The condition on `processed_at` for a `processed` filter; `""` when there is none.
 *
 * @example
 * ```ts
 * processedCondition(false); // "processed_at IS NULL"
 * ```
 */
export function processedCondition(processed: boolean | undefined): string {
  if (processed === undefined) return "";
  return processed ? "processed_at IS NOT NULL" : "processed_at IS NULL";
}

/**
 * The page of `take` events out of `events` (newest first, fetched with one more row than `take`); the cursor goes
 * on below the last one when that extra row came back.
 *
 * @example
 * ```ts
 * inboxPage(rows, 50); // { items: rows.slice(0, 50), nextCursor: rows.length > 50 ? "…" : null }
 * ```
 */
export function inboxPage(events: readonly InboxEvent[], take: number): Page<InboxEvent> {
  const items = events.slice(0, take);
  const last = items.at(-1);
  return { items, nextCursor: events.length > take && last ? encodeCursor(last.seq) : null };
}
