import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimedDelivery, DeliveryState, Outbox } from "../api/outbox.js";
import type { SigningScheme } from "../api/subscriptions.js";
import { StoreConflictError } from "../errors.js";
import { claimPlan } from "../shared/claim-plan.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { outcomeMethods } from "../shared/outcomes.js";
import { checkReplay, prepareEvent } from "../shared/prepare-event.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type MessageRow,
  toAttempt,
  toDelivery,
  toMessage,
  traceCarrierOf,
} from "../shared/rows.js";
import { activeSecretsOf, type StoredSecret } from "../shared/subscription-codec.js";
import { toMillis } from "../shared/time.js";
import { checkDeliveryFilters, checkIdempotencyKey, checkTraceContext } from "../shared/validate.js";
import { type PgContext, query, transaction } from "./context.js";
import { claimSql, compactCountsSql, oldestDueSql, publishSql, stateCountsSql } from "./outbox-sql.js";
import { createPgOutcomeRecorder } from "./pg-outcomes.js";

/** Claims between two compactions of the append-only counter deltas. */
const COMPACT_EVERY = 500;

/** A row of the claim statement (int8 columns arrive as strings). */
interface ClaimRow {
  id: string;
  was_due: string;
  attempts: number;
  message_id: string;
  event_type: string;
  body: Uint8Array;
  created_at: string;
  trace_context: string | null;
  subscription_id: string;
  url: string;
  token: string;
  /** jsonb as text: parsed once per subscription of the claim, not once per row. */
  secrets: string;
  signing: SigningScheme;
}

/**
 * PostgreSQL outbox. Every hot path is ONE statement (see `outbox-sql.ts`): publish inserts the
 * message and fans out in a CTE; claim selects due rows with `FOR UPDATE SKIP LOCKED` and leases
 * them; the outcome recorder writes a turn's outcomes together, checking each lease, logging the attempts and
 * keeping the failure streaks.
 *
 * @example
 * ```ts
 * const outbox = createPgOutbox(ctx);
 * await outbox.publish(event, { tx: client }); // inside the caller's BEGIN … COMMIT
 * ```
 */
export function createPgOutbox(ctx: PgContext): Outbox & { drain(): Promise<void> } {
  const { s } = ctx;
  const now = () => ctx.options.now();
  let claimGeneration = 0;
  let claimsSinceCompaction = 0;

  const publish = publishSql(s);
  const claim = claimSql(s);
  const compactStatement = compactCountsSql(s);

  const recorder = createPgOutcomeRecorder(ctx);

  const compact = () => query(ctx, compactStatement);

  return {
    async publish(event, options = {}) {
      const key = options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey);
      const prepared = prepareEvent(event, options);
      const traceContext = checkTraceContext(options.traceContext);
      const at = now();
      const [row] = await query<{ id: string | null; deliveries: number }>(
        ctx,
        publish,
        [ctx.nextId(), key, prepared.body, at, ctx.channels.outbox, prepared.eventType, traceContext],
        options.tx,
      );
      if (row?.id)
        return { messageId: row.id, duplicate: false, deliveries: row.deliveries, createdAt: new Date(at) };
      // A replay answers like the original: its fan-out count, read through deliveries_message_idx.
      const [existing] = await query<MessageRow & { deliveries: number }>(
        ctx,
        `SELECT m.*, (SELECT count(*)::int FROM ${s}.deliveries d WHERE d.message_id = m.id) AS deliveries
         FROM ${s}.messages m WHERE m.idempotency_key = $1`,
        [key],
        options.tx,
      );
      if (!existing) {
        throw new StoreConflictError(
          "idempotency_conflict",
          "This idempotency key was already used for a different event; use a new key.",
        );
      }
      checkReplay(existing, prepared);
      return {
        messageId: existing.id,
        duplicate: true,
        deliveries: existing.deliveries,
        createdAt: new Date(Number(existing.created_at)),
      };
    },
    async getMessage(id) {
      const [row] = await query<MessageRow>(ctx, `SELECT * FROM ${s}.messages WHERE id = $1`, [id]);
      return row ? toMessage(row) : null;
    },
    async claim(limit, options) {
      const plan = claimPlan(limit, options);
      claimGeneration = ctx.outboxWork.generation;
      if (++claimsSinceCompaction >= COMPACT_EVERY) {
        claimsSinceCompaction = 0;
        await compact();
      }
      const at = now();
      const leaseToken = randomUUID();
      const subscriptionOf = subscriptionReader(ctx, at);
      const rows = await query<ClaimRow>(ctx, claim, [
        at,
        plan.limit,
        at + plan.leaseMs,
        plan.workerId,
        leaseToken,
        plan.skip,
        plan.scan,
        plan.cap,
      ]);
      // Pushed, not mapped: see `activeSecretsOf` (the worker's code that takes the claim would deoptimize).
      const claimed: ClaimedDelivery[] = [];
      for (const r of rows) {
        claimed.push({
          id: Number(r.id),
          leaseToken,
          attempt: Number(r.attempts) + 1,
          leaseExpiresAt: new Date(at + plan.leaseMs),
          dueAt: new Date(Number(r.was_due)),
          message: {
            id: r.message_id,
            eventType: r.event_type,
            body: r.body,
            createdAt: new Date(Number(r.created_at)),
            traceContext: traceCarrierOf(r.trace_context),
          },
          subscription: subscriptionOf(r),
        });
      }
      return claimed;
    },
    ...outcomeMethods(recorder, now, () => query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox])),
    drain: () => recorder.drain(),
    resend: (id) =>
      transaction(ctx, async (client) => {
        const [cur] = await query<{ state: DeliveryState; enabled: boolean }>(
          ctx,
          `SELECT d.state, sub.enabled FROM ${s}.deliveries d JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
           WHERE d.id = $1 FOR UPDATE OF d`,
          [id],
          client,
        );
        if (!cur) throw new StoreConflictError("not_found", `Delivery ${id} does not exist.`);
        if (cur.state === "leased") {
          throw new StoreConflictError(
            "delivery_in_flight",
            `Delivery ${id} is being attempted; resend it afterwards.`,
          );
        }
        if (!cur.enabled) {
          throw new StoreConflictError(
            "subscription_disabled",
            `Delivery ${id} belongs to a disabled subscription; enable it first.`,
          );
        }
        const at = now();
        const [row] = await query<DeliveryRow>(
          ctx,
          `UPDATE ${s}.deliveries SET state = 'pending', due_at = $2, attempts = 0, finished_at = NULL, updated_at = $2
           WHERE id = $1 RETURNING *`,
          [id, at],
          client,
        );
        await query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox], client);
        return toDelivery(row as DeliveryRow);
      }),
    recover: (subscriptionId, since) =>
      transaction(
        ctx,
        async (client) => {
          const [sub] = await query<{ enabled: boolean }>(
            ctx,
            `SELECT enabled FROM ${s}.subscriptions WHERE id = $1 FOR SHARE`,
            [subscriptionId],
            client,
          );
          if (!sub)
            throw new StoreConflictError(
              "not_found",
              `Subscription ${JSON.stringify(subscriptionId)} does not exist.`,
            );
          if (!sub.enabled) {
            throw new StoreConflictError(
              "subscription_disabled",
              "Enable the subscription before recovering its deliveries.",
            );
          }
          const at = now();
          const rows = await query(
            ctx,
            `UPDATE ${s}.deliveries SET state = 'pending', due_at = $2, attempts = 0, finished_at = NULL, updated_at = $2
           WHERE subscription_id = $1 AND state = 'failed' AND created_at >= $3 RETURNING id`,
            [subscriptionId, at, toMillis(since)],
            client,
          );
          if (rows.length > 0) await query(ctx, "SELECT pg_notify($1, '')", [ctx.channels.outbox], client);
          return rows.length;
        },
        { bulk: true },
      ),
    async getDelivery(id) {
      const [row] = await query<DeliveryRow>(ctx, `SELECT * FROM ${s}.deliveries WHERE id = $1`, [id]);
      return row ? toDelivery(row) : null;
    },
    async listDeliveries(options = {}) {
      const limit = pageLimit(options.limit);
      const before = decodeCursor(options.cursor);
      const where: string[] = [];
      const params: unknown[] = [limit + 1];
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
        `SELECT * FROM ${s}.deliveries ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT $1`,
        params,
      );
      const items = rows.slice(0, limit).map(toDelivery);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
    },
    async listAttempts(deliveryId) {
      const rows = await query<AttemptRow>(
        ctx,
        `SELECT * FROM ${s}.delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
        [deliveryId],
      );
      return rows.map(toAttempt);
    },
    async stats() {
      await compact();
      const at = now();
      const counts = new Map(
        (await query<{ state: DeliveryState; n: string }>(ctx, stateCountsSql(s))).map((r) => [
          r.state,
          Number(r.n),
        ]),
      );
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
    },
    async waitForWork(signal, timeoutMs = 1000) {
      const since = claimGeneration;
      const deadline = Date.now() + timeoutMs;
      // LISTEN starts on first use; do not wait for it longer than the caller would wait anyway.
      await Promise.race([
        ctx.listener.start().catch(() => {}),
        sleep(timeoutMs, undefined, { signal, ref: false }).catch(() => {}),
      ]);
      if (ctx.closed.aborted) return false;
      return ctx.outboxWork.wait({ signal, timeoutMs: Math.max(0, deadline - Date.now()), since });
    },
  };
}

/** Decrypts each subscription of one claim once: a claim's rows mostly share a few. */
function subscriptionReader(ctx: PgContext, at: number) {
  const subscriptions = new Map<string, ClaimedDelivery["subscription"]>();
  return (r: ClaimRow): ClaimedDelivery["subscription"] => {
    let subscription = subscriptions.get(r.subscription_id);
    if (!subscription) {
      subscription = {
        id: r.subscription_id,
        url: r.url,
        token: ctx.box.open(r.token, `${r.subscription_id}:token`),
        secrets: activeSecretsOf(ctx.box, r.subscription_id, JSON.parse(r.secrets) as StoredSecret[], at),
        signing: r.signing,
      };
      subscriptions.set(r.subscription_id, subscription);
    }
    return subscription;
  };
}
