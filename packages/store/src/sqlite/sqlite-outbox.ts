import { DELIVERY_STATES } from "@plant-store/core";
import type { DeliveryState, Outbox } from "../api/outbox.js";
import { StoreConflictError } from "../errors.js";
import { claimPlan } from "../shared/claim-plan.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { outcomeMethods } from "../shared/outcomes.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type MessageRow,
  toAttempt,
  toDelivery,
  toMessage,
} from "../shared/rows.js";
import { toMillis } from "../shared/time.js";
import { checkDeliveryFilters } from "../shared/validate.js";
import { runSqlite, type SqliteContext } from "./context.js";
import { OLDEST_DUE, RECOVER_FAILED_OF, STATE_COUNTS } from "./outbox-sql.js";
import { createSqliteClaimer } from "./sqlite-claimer.js";
import { createSqliteOutcomeRecorder } from "./sqlite-outcomes.js";
import { createSqlitePublisher } from "./sqlite-publisher.js";

const STATES: readonly DeliveryState[] = DELIVERY_STATES;

/**
 * SQLite outbox, in three stages over one connection: the publisher (group-committed publishes), the claimer (one
 * IMMEDIATE transaction per claim) and the outcome recorder (a turn's outcomes in one transaction); the rest
 * (resend, recover, lists, stats) are single statements.
 *
 * @example
 * ```ts
 * const outbox = createSqliteOutbox(ctx);
 * await outbox.publish({ id: 1, name: "Fern" });
 * ```
 */
export function createSqliteOutbox(ctx: SqliteContext): Outbox & { drain(): Promise<void> } {
  const now = () => ctx.options.now();
  let claimGeneration = 0;
  const publisher = createSqlitePublisher(ctx);
  const claim = createSqliteClaimer(ctx);
  const recorder = createSqliteOutcomeRecorder(ctx);

  const resend = ctx.db.transaction((id: number, at: number) => {
    const row = ctx
      .sql(
        `SELECT d.state, s.enabled FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.id = ?`,
      )
      .get(id) as { state: DeliveryState; enabled: number } | undefined;
    if (!row) throw new StoreConflictError("not_found", `Delivery ${id} does not exist.`);
    if (row.state === "leased") {
      throw new StoreConflictError(
        "delivery_in_flight",
        `Delivery ${id} is being attempted; resend it afterwards.`,
      );
    }
    if (row.enabled !== 1) {
      throw new StoreConflictError(
        "subscription_disabled",
        `Delivery ${id} belongs to a disabled subscription; enable it first.`,
      );
    }
    ctx
      .sql(
        `UPDATE deliveries SET state = 'pending', due_at = ?, attempts = 0, finished_at = NULL, updated_at = ?
         WHERE id = ?`,
      )
      .run(at, at, id);
    return toDelivery(ctx.sql("SELECT * FROM deliveries WHERE id = ?").get(id) as DeliveryRow);
  });

  const recover = ctx.db.transaction((subscriptionId: string, since: number, at: number) => {
    const enabled = ctx.sql("SELECT enabled FROM subscriptions WHERE id = ?").pluck().get(subscriptionId);
    if (enabled === undefined) {
      throw new StoreConflictError(
        "not_found",
        `Subscription ${JSON.stringify(subscriptionId)} does not exist.`,
      );
    }
    if (enabled !== 1) {
      throw new StoreConflictError(
        "subscription_disabled",
        "Enable the subscription before recovering its deliveries.",
      );
    }
    return ctx.sql(RECOVER_FAILED_OF).run(at, at, subscriptionId, since).changes;
  });

  return {
    publish: publisher.publish,
    getMessage: (id) =>
      runSqlite(ctx, () => {
        const row = ctx.sql("SELECT * FROM messages WHERE id = ?").get(id) as MessageRow | undefined;
        return row ? toMessage(row) : null;
      }),
    claim: (limit, options) =>
      runSqlite(ctx, () => {
        const plan = claimPlan(limit, options);
        claimGeneration = ctx.outboxWork.generation;
        return ctx.relaxed(() => claim.immediate(plan, now()));
      }),
    ...outcomeMethods(recorder, now, () => ctx.outboxWork.emit()),
    drain: async () => {
      await Promise.all([publisher.drain(), recorder.drain()]);
    },
    resend: (id) =>
      runSqlite(ctx, () => {
        const delivery = resend.immediate(id, now());
        ctx.outboxWork.emit();
        return delivery;
      }),
    recover: (subscriptionId, since) =>
      runSqlite(ctx, () => {
        const n = recover.immediate(subscriptionId, toMillis(since), now());
        if (n > 0) ctx.outboxWork.emit();
        return n;
      }),
    getDelivery: (id) =>
      runSqlite(ctx, () => {
        const row = ctx.sql("SELECT * FROM deliveries WHERE id = ?").get(id) as DeliveryRow | undefined;
        return row ? toDelivery(row) : null;
      }),
    listDeliveries: (options = {}) =>
      runSqlite(ctx, () => {
        const limit = pageLimit(options.limit);
        const before = decodeCursor(options.cursor);
        const where: string[] = [];
        const params: unknown[] = [];
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
      }),
    listAttempts: (deliveryId) =>
      runSqlite(ctx, () =>
        (
          ctx
            .sql("SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY id")
            .all(deliveryId) as AttemptRow[]
        ).map(toAttempt),
      ),
    stats: () =>
      runSqlite(ctx, () => {
        const at = now();
        const counts = new Map(
          (ctx.sql(STATE_COUNTS).all() as { state: DeliveryState; n: number }[]).map((r) => [r.state, r.n]),
        );
        const oldest = ctx.sql(OLDEST_DUE).pluck().get(at) as number | undefined;
        const [pending, leased, delivered, failed] = STATES.map((s) => counts.get(s) ?? 0) as [
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
      }),
    waitForWork: (signal, timeoutMs = 1000) =>
      ctx.outboxWork.wait({ signal, timeoutMs, since: claimGeneration }),
  };
}
