import { randomUUID } from "node:crypto";
import type { AttemptInput, ClaimedDelivery, DeliveryState, LeaseRef, Outbox } from "../api/outbox.js";
import { StoreConflictError, StoreInputError, StoreUnavailableError } from "../errors.js";
import { type AttemptValues, attemptValues } from "../shared/attempt.js";
import { decodeCursor, encodeCursor, pageLimit } from "../shared/cursor.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { prepareEvent } from "../shared/prepare-event.js";
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
import { checkKey, checkPositiveInt } from "../shared/validate.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import { CLAIM_DUE, CLAIMED_DETAILS, LEASE_ONE, OLDEST_DUE, STATE_COUNTS } from "./outbox-sql.js";

const STATES: readonly DeliveryState[] = ["pending", "leased", "delivered", "failed"];

interface LeasedRow {
  subscription_id: string;
  attempts: number;
  lease_owner: string | null;
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

  const publish = ctx.db.transaction((body: Uint8Array, key: string | null, at: number) => {
    if (key !== null) {
      const existing = ctx.sql("SELECT * FROM messages WHERE idempotency_key = ?").get(key) as
        | MessageRow
        | undefined;
      if (existing) return { existing, deliveries: 0 };
    }
    const id = ctx.nextId();
    ctx
      .sql("INSERT INTO messages (id, idempotency_key, body, created_at) VALUES (?, ?, ?, ?)")
      .run(id, key, body, at);
    const fanOut = ctx
      .sql(
        `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
         SELECT ?, id, 'pending', ?, ?, ? FROM subscriptions WHERE enabled = 1 ORDER BY id`,
      )
      .run(id, at, at, at);
    return { existing: undefined, id, deliveries: fanOut.changes };
  });

  const claim = ctx.db.transaction((limit: number, leaseMs: number, workerId: string, at: number) => {
    const due = ctx.sql(CLAIM_DUE).all(at, limit) as { id: number; due_at: number; attempts: number }[];
    const leaseToken = randomUUID();
    const leaseUntil = at + leaseMs;
    const lease = ctx.sql(LEASE_ONE);
    const details = ctx.sql(CLAIMED_DETAILS);
    return due.map((row): ClaimedDelivery => {
      lease.run(leaseUntil, workerId, leaseToken, at, row.id);
      const d = details.get(row.id) as {
        message_id: string;
        body: Uint8Array;
        created_at: number;
        subscription_id: string;
        url: string;
        token: string;
        secrets: string;
      };
      return {
        id: row.id,
        leaseToken,
        attempt: row.attempts + 1,
        leaseExpiresAt: new Date(leaseUntil),
        dueAt: new Date(row.due_at),
        message: { id: d.message_id, body: d.body, createdAt: new Date(d.created_at) },
        subscription: {
          id: d.subscription_id,
          url: d.url,
          token: ctx.box.open(d.token, `${d.subscription_id}:token`),
          secrets: activeSecretsOf(ctx.box, d.subscription_id, JSON.parse(d.secrets) as StoredSecret[], at),
        },
      };
    });
  });

  /** The leased row, or `lease_lost` if another worker (or nobody) holds it now. */
  const leased = (lease: LeaseRef): LeasedRow => {
    const row = ctx
      .sql(
        "SELECT subscription_id, attempts, lease_owner FROM deliveries WHERE id = ? AND state = 'leased' AND lease_token = ?",
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
  const logAttempt = (lease: LeaseRef, row: LeasedRow, a: AttemptValues): number => {
    const attempt = row.attempts + 1;
    ctx
      .sql(
        `INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(lease.id, attempt, a.at, a.status, a.latencyMs, a.responseBody, a.error, row.lease_owner);
    ctx
      .sql("UPDATE deliveries SET attempts = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?")
      .run(attempt, a.status, a.error, now(), lease.id);
    return attempt;
  };
  const streak = (subscriptionId: string, ok: boolean, at: number) => {
    if (ok) {
      ctx
        .sql("UPDATE subscriptions SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL")
        .run(subscriptionId);
    } else {
      ctx
        .sql("UPDATE subscriptions SET failing_since = ? WHERE id = ? AND failing_since IS NULL")
        .run(at, subscriptionId);
    }
  };
  const attemptOf = (input: AttemptInput | undefined) => (input ? attemptValues(input, now()) : undefined);

  const finish = ctx.db.transaction(
    (
      lease: LeaseRef,
      outcome: "delivered" | "retry" | "failed" | "release",
      attempt: AttemptValues | undefined,
      nextAt: number,
      reason: string | null,
    ) => {
      const row = leased(lease);
      if (attempt) logAttempt(lease, row, attempt);
      const at = now();
      const enabled =
        ctx.sql("SELECT enabled FROM subscriptions WHERE id = ?").pluck().get(row.subscription_id) === 1;
      let state: DeliveryState =
        outcome === "delivered" ? "delivered" : outcome === "failed" ? "failed" : "pending";
      let error = reason ?? attempt?.error ?? null;
      if (state === "pending" && !enabled && outcome === "retry") {
        state = "failed";
        error = "subscription disabled";
      }
      ctx
        .sql(
          `UPDATE deliveries SET state = ?, due_at = ?, lease_owner = NULL, lease_token = NULL,
             last_error = coalesce(?, last_error), finished_at = ?, updated_at = ? WHERE id = ?`,
        )
        .run(state, state === "pending" ? nextAt : at, error, state === "pending" ? null : at, at, lease.id);
      if (outcome !== "release") streak(row.subscription_id, outcome === "delivered", attempt?.at ?? at);
    },
  );

  // Finishing deliveries (complete / reschedule / fail) is group-committed like inbox writes: the calls of one
  // event-loop turn share ONE transaction, each in its own savepoint so a lost lease fails only its own call;
  // every promise settles after the commit that holds it. Claims and outcomes commit relaxed (ctx.relaxed: no
  // fsync, crash-safe; a power loss can only make a delivery pending again, so it is sent once more).
  type FinishItem = Parameters<typeof finish>;
  const finishBatch = ctx.db.transaction((items: FinishItem[]) =>
    items.map((item): { ok: true } | { ok: false; error: unknown } => {
      try {
        finish(...item);
        return { ok: true };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );
  const finisher = new GroupCommitter(
    (items: FinishItem[]) => {
      try {
        return ctx.relaxed(() => finishBatch.immediate(items));
      } catch (error) {
        throw mapSqliteError(error);
      }
    },
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
    publish: (event, options = {}) =>
      runSqlite(ctx, () => {
        if (options.tx !== undefined) {
          throw new StoreInputError("invalid_option", "publish({ tx }) needs the PostgreSQL backend.");
        }
        const key =
          options.idempotencyKey === undefined ? null : checkKey(options.idempotencyKey, "idempotency key");
        const body = prepareEvent(event, options.mode);
        const at = now();
        const result = publish.immediate(body, key, at);
        if (result.existing) {
          if (!Buffer.from(result.existing.body).equals(Buffer.from(body))) {
            throw new StoreConflictError(
              "idempotency_conflict",
              "This idempotency key was already used for a different event; use a new key.",
            );
          }
          return {
            messageId: result.existing.id,
            duplicate: true,
            deliveries: 0,
            createdAt: new Date(result.existing.created_at),
          };
        }
        if (result.deliveries > 0) ctx.outboxWork.emit();
        return {
          messageId: result.id as string,
          duplicate: false,
          deliveries: result.deliveries,
          createdAt: new Date(at),
        };
      }),
    getMessage: (id) =>
      runSqlite(ctx, () => {
        const row = ctx.sql("SELECT * FROM messages WHERE id = ?").get(id) as MessageRow | undefined;
        return row ? toMessage(row) : null;
      }),
    claim: (limit, options) =>
      runSqlite(ctx, () => {
        checkPositiveInt(limit, "claim limit");
        checkPositiveInt(options?.leaseMs, "leaseMs");
        claimGeneration = ctx.outboxWork.generation;
        const workerId = checkKey(options.workerId, "worker id");
        return ctx.relaxed(() => claim.immediate(Math.min(limit, 1000), options.leaseMs, workerId, now()));
      }),
    recordAttempt: (lease, attempt) =>
      runSqlite(ctx, () => {
        const values = attemptValues(attempt, now());
        ctx.db.transaction(() => logAttempt(lease, leased(lease), values)).immediate();
      }),
    drain: () => finisher.drain(),
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
        for (const [column, value] of [
          ["message_id", options.messageId],
          ["subscription_id", options.subscriptionId],
          ["state", options.state],
        ] as const) {
          if (value !== undefined) {
            where.push(`${column} = ?`);
            params.push(value);
          }
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
