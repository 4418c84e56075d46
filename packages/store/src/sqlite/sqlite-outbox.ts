import { randomUUID } from "node:crypto";
import { DELIVERY_STATES } from "@plant-store/core";
import type { AttemptInput, ClaimedDelivery, DeliveryState, LeaseRef, Outbox } from "../api/outbox.js";
import type { SigningScheme } from "../api/subscriptions.js";
import { StoreConflictError, StoreInputError, StoreUnavailableError } from "../errors.js";
import { type AttemptValues, attemptValues } from "../shared/attempt.js";
import { type ClaimPlan, claimPlan, pickDue } from "../shared/claim-plan.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { checkReplay, prepareEvent } from "../shared/prepare-event.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type MessageRow,
  toAttempt,
  toDelivery,
  toMessage,
} from "../shared/rows.js";
import { activeSecretsOf, type StoredSecret } from "../shared/subscription-codec.js";
import { toMillis } from "../shared/time.js";
import { checkDeliveryFilters, checkIdempotencyKey } from "../shared/validate.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import {
  CLAIM_DUE,
  CLAIMED_SUBSCRIPTION,
  FAIL_DISABLED,
  LEASE_ONE,
  OLDEST_DUE,
  STATE_COUNTS,
} from "./outbox-sql.js";

const STATES: readonly DeliveryState[] = DELIVERY_STATES;
/** `last_error` of a delivery failed because its subscription was disabled while it was leased. */
const DISABLED = "subscription disabled";

interface LeasedRow {
  subscription_id: string;
  attempts: number;
  lease_owner: string | null;
  enabled: number;
  failing_since: number | null;
}

interface DueRow {
  id: number;
  due_at: number;
  attempts: number;
  subscription_id: string;
  message_id: string;
  event_type: string;
  body: Uint8Array;
  created_at: number;
  enabled: number;
}

/**
 * SQLite outbox. SQLite has one writer at a time, so a claim is a plain IMMEDIATE transaction:
 * select the due rows through `deliveries_due_idx`, then lease them.
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

  type PublishItem = { body: Uint8Array; eventType: string; key: string | null; at: number };
  const publishOne = ({ body, eventType, key, at }: PublishItem) => {
    if (key !== null) {
      const existing = ctx.sql("SELECT * FROM messages WHERE idempotency_key = ?").get(key) as
        | MessageRow
        | undefined;
      // A replay answers like the original: its fan-out count, read through deliveries_message_idx.
      if (existing) {
        const n = ctx.sql("SELECT count(*) FROM deliveries WHERE message_id = ?").pluck().get(existing.id);
        return { existing, deliveries: n as number };
      }
    }
    const id = ctx.nextId();
    ctx
      .sql("INSERT INTO messages (id, idempotency_key, event_type, body, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, key, eventType, body, at);
    // Only the subscriptions that receive this type (event_types NULL = every type).
    const fanOut = ctx
      .sql(
        `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
         SELECT ?, id, 'pending', ?, ?, ? FROM subscriptions
         WHERE enabled = 1 AND (event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?))
         ORDER BY id`,
      )
      .run(id, at, at, at, eventType);
    return { existing: undefined, id, deliveries: fanOut.changes };
  };
  type Published = ReturnType<typeof publishOne>;
  // Publishes are group-committed like inbox writes (unless `groupCommit: false`): the calls of one event-loop turn
  // share ONE transaction and one fsync (synchronous=FULL: a publish is what the caller is told is stored). An
  // idempotency key used twice in one batch finds the first row, as it would one turn later.
  const publishBatch = ctx.db.transaction((items: PublishItem[]) => items.map(publishOne));
  const commitPublishes = (items: PublishItem[]): Published[] => {
    const results = publishBatch.immediate(items);
    if (results.some((r) => r.existing === undefined && r.deliveries > 0)) ctx.outboxWork.emit();
    return results;
  };
  const publisher = new GroupCommitter(
    (items: PublishItem[]) => runSqlite(ctx, () => commitPublishes(items)),
    { maxBatch: ctx.options.maxBatchSize },
  );

  const claim = ctx.db.transaction((plan: ClaimPlan, at: number) => {
    const { leaseMs, workerId } = plan;
    const scanned = ctx.sql(CLAIM_DUE).all(at, JSON.stringify(plan.skip), plan.scan) as DueRow[];
    for (const row of scanned) {
      if (row.enabled !== 1) ctx.sql(FAIL_DISABLED).run(at, DISABLED, at, at, row.id);
    }
    const due = pickDue(
      scanned.filter((row) => row.enabled === 1),
      plan,
    );
    const leaseToken = randomUUID();
    const leaseUntil = at + leaseMs;
    const leaseExpiresAt = new Date(leaseUntil);
    const lease = ctx.sql(LEASE_ONE);
    // A claim's rows mostly share a few subscriptions: each is read and its secrets opened once per claim.
    const subscriptions = new Map<string, ClaimedDelivery["subscription"]>();
    const subscriptionOf = (id: string): ClaimedDelivery["subscription"] => {
      let subscription = subscriptions.get(id);
      if (!subscription) {
        const s = ctx.sql(CLAIMED_SUBSCRIPTION).get(id) as {
          id: string;
          url: string;
          token: string;
          secrets: string;
          signing: SigningScheme;
        };
        subscription = {
          id: s.id,
          url: s.url,
          token: ctx.box.open(s.token, `${s.id}:token`),
          secrets: activeSecretsOf(ctx.box, s.id, JSON.parse(s.secrets) as StoredSecret[], at),
          signing: s.signing,
        };
        subscriptions.set(id, subscription);
      }
      return subscription;
    };
    return due.map((row): ClaimedDelivery => {
      lease.run(leaseUntil, workerId, leaseToken, at, row.id);
      return {
        id: row.id,
        leaseToken,
        attempt: row.attempts + 1,
        leaseExpiresAt,
        dueAt: new Date(row.due_at),
        message: {
          id: row.message_id,
          eventType: row.event_type,
          body: row.body,
          createdAt: new Date(row.created_at),
        },
        subscription: subscriptionOf(row.subscription_id),
      };
    });
  });

  /** The leased row and its subscription's state, or `lease_lost` if another worker (or nobody) holds it now. */
  const leased = (lease: LeaseRef): LeasedRow => {
    const row = ctx
      .sql(
        `SELECT d.subscription_id, d.attempts, d.lease_owner, s.enabled, s.failing_since
         FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
         WHERE d.id = ? AND d.state = 'leased' AND d.lease_token = ?`,
      )
      .get(lease?.id, lease?.leaseToken) as LeasedRow | undefined;
    if (!row) {
      throw new StoreConflictError(
        "lease_lost",
        `Delivery ${lease?.id} is no longer leased with this token (the lease expired and was reclaimed, or it was finished).`,
      );
    }
    return row;
  };
  const insertAttempt = (lease: LeaseRef, row: LeasedRow, a: AttemptValues): number => {
    const attempt = row.attempts + 1;
    ctx
      .sql(
        `INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(lease.id, attempt, a.at, a.status, a.latencyMs, a.responseBody, a.error, row.lease_owner);
    return attempt;
  };
  const logAttempt = (lease: LeaseRef, row: LeasedRow, a: AttemptValues): void => {
    const attempt = insertAttempt(lease, row, a);
    ctx
      .sql("UPDATE deliveries SET attempts = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?")
      .run(attempt, a.status, a.error, now(), lease.id);
  };
  const attemptOf = (input: AttemptInput | undefined) => (input ? attemptValues(input, now()) : undefined);

  /**
   * Finishes one leased delivery. The lease is checked before anything is written, so a `lease_lost` leaves no
   * trace; the attempt row, ONE update of the delivery (state, lease, attempt count, last status and error) and,
   * only when the streak changes, the subscription's `failing_since` follow.
   */
  const finishRow = (
    lease: LeaseRef,
    outcome: "delivered" | "retry" | "failed" | "release",
    attempt: AttemptValues | undefined,
    nextAt: number,
    reason: string | null,
  ): void => {
    const row = leased(lease);
    const at = now();
    let state: DeliveryState =
      outcome === "delivered" ? "delivered" : outcome === "failed" ? "failed" : "pending";
    let error = reason ?? attempt?.error ?? null;
    // A retry or a handed-back lease of a disabled subscription would never be claimed usefully again.
    if (state === "pending" && row.enabled !== 1 && (outcome === "retry" || outcome === "release")) {
      state = "failed";
      error = DISABLED;
    }
    const dueAt = state === "pending" ? nextAt : at;
    const finishedAt = state === "pending" ? null : at;
    if (attempt) {
      const attempts = insertAttempt(lease, row, attempt);
      ctx
        .sql(
          `UPDATE deliveries SET state = ?, due_at = ?, lease_owner = NULL, lease_token = NULL, attempts = ?,
             last_status = ?, last_error = ?, finished_at = ?, updated_at = ? WHERE id = ?`,
        )
        .run(state, dueAt, attempts, attempt.status, error, finishedAt, at, lease.id);
    } else {
      ctx
        .sql(
          `UPDATE deliveries SET state = ?, due_at = ?, lease_owner = NULL, lease_token = NULL,
             last_error = coalesce(?, last_error), finished_at = ?, updated_at = ? WHERE id = ?`,
        )
        .run(state, dueAt, error, finishedAt, at, lease.id);
    }
    if (outcome === "release") return;
    if (outcome === "delivered") {
      if (row.failing_since !== null) {
        ctx.sql("UPDATE subscriptions SET failing_since = NULL WHERE id = ?").run(row.subscription_id);
      }
    } else if (row.failing_since === null) {
      ctx
        .sql("UPDATE subscriptions SET failing_since = ? WHERE id = ?")
        .run(attempt?.at ?? at, row.subscription_id);
    }
  };
  const finish = ctx.db.transaction(finishRow);

  // Finishing deliveries (complete / reschedule / fail) is group-committed like inbox writes: the calls of one
  // event-loop turn share ONE transaction, and a lost lease fails only its own call; every promise settles after the commit that holds it. Claims and outcomes commit relaxed (ctx.relaxed: no
  // fsync, crash-safe; a power loss can only make a delivery pending again, so it is sent once more).
  // No savepoint per call: a lost lease is detected before its call writes anything, so it fails alone; any other
  // error aborts the whole batch (rolled back; every caller gets it and the deliveries are retried after their lease).
  type FinishItem = Parameters<typeof finishRow>;
  const finishBatch = ctx.db.transaction((items: FinishItem[]) =>
    items.map((item): { ok: true } | { ok: false; error: unknown } => {
      try {
        finishRow(...item);
        return { ok: true };
      } catch (error) {
        if (error instanceof StoreConflictError && error.code === "lease_lost") return { ok: false, error };
        throw error;
      }
    }),
  );
  const finisher = new GroupCommitter(
    // runSqlite maps errors and waits out another process's lock asynchronously.
    (items: FinishItem[]) => runSqlite(ctx, () => ctx.relaxed(() => finishBatch.immediate(items))),
    { maxBatch: ctx.options.maxBatchSize },
  );
  const finishGrouped = async (...item: FinishItem): Promise<void> => {
    if (ctx.closed.aborted) throw new StoreUnavailableError("The store is closed.", { code: "store_closed" });
    const result = await finisher.submit(item);
    if (!result.ok) throw mapSqliteError(result.error);
  };

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
    return ctx
      .sql(
        `UPDATE deliveries SET state = 'pending', due_at = ?, attempts = 0, finished_at = NULL, updated_at = ?
         WHERE subscription_id = ? AND state = 'failed' AND created_at >= ?`,
      )
      .run(at, at, subscriptionId, since).changes;
  });

  return {
    publish: async (event, options = {}) => {
      if (ctx.closed.aborted)
        throw new StoreUnavailableError("The store is closed.", { code: "store_closed" });
      if (options.tx !== undefined) {
        throw new StoreInputError("invalid_option", "publish({ tx }) needs the PostgreSQL backend.");
      }
      const key = options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey);
      const prepared = prepareEvent(event, options);
      const item: PublishItem = { key, body: prepared.body, eventType: prepared.eventType, at: now() };
      const result = ctx.options.groupCommit
        ? await publisher.submit(item)
        : await runSqlite(ctx, () => commitPublishes([item])[0] as Published);
      if (result.existing) {
        checkReplay(result.existing, prepared);
        return {
          messageId: result.existing.id,
          duplicate: true,
          deliveries: result.deliveries,
          createdAt: new Date(result.existing.created_at),
        };
      }
      return {
        messageId: result.id as string,
        duplicate: false,
        deliveries: result.deliveries,
        createdAt: new Date(item.at),
      };
    },
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
    recordAttempt: (lease, attempt) =>
      runSqlite(ctx, () => {
        const values = attemptValues(attempt, now());
        ctx.db.transaction(() => logAttempt(lease, leased(lease), values)).immediate();
      }),
    drain: async () => {
      await Promise.all([publisher.drain(), finisher.drain()]);
    },
    complete: (lease, options = {}) => finishGrouped(lease, "delivered", attemptOf(options.attempt), 0, null),
    reschedule: (lease, nextAt, options = {}) =>
      finishGrouped(lease, "retry", attemptOf(options.attempt), toMillis(nextAt), null),
    fail: (lease, options = {}) =>
      finishGrouped(lease, "failed", attemptOf(options.attempt), 0, options.reason ?? null),
    release: (lease) =>
      runSqlite(ctx, () => {
        finish.immediate(lease, "release", undefined, now(), null);
        ctx.outboxWork.emit();
      }),
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
