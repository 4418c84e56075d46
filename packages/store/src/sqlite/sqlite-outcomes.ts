import { GONE_REASON } from "@plant-store/core";
import { storeClosedError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { lastAttempt } from "../shared/operational.js";
import {
  LEASE_RULES,
  leaseLost,
  netStreaks,
  type Outcome,
  type OutcomeResult,
  type StreakEffect,
  streakOf,
  transitionOf,
} from "../shared/outcomes.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import { disableSubscription } from "./disable-subscription.js";
import {
  HELD_LEASES,
  insertAttemptsSql,
  SET_FAILING_SINCE,
  SUBSCRIPTION_STATES,
  updateDeliveriesSql,
} from "./outbox-sql.js";
import { reportExhausted } from "./sqlite-operational.js";

/** Rows per multi-row statement: 64 × 8 parameters, well under SQLite's limit; one cached statement per size. */
const CHUNK = 64;

/** Runs `run` over `values` (rows of `width` values each) in chunks of at most {@link CHUNK} rows. */
function inChunks(values: unknown[], width: number, run: (rows: number, values: unknown[]) => void): void {
  for (let start = 0; start < values.length; start += CHUNK * width) {
    const chunk = values.length <= CHUNK * width ? values : values.slice(start, start + CHUNK * width);
    run(chunk.length / width, chunk);
  }
}

/** The outbox's outcome recorder: writes lease transitions, a turn's worth at a time. */
export interface SqliteOutcomeRecorder {
  /** Resolves once the outcome is committed; rejects with `lease_lost` alone, or with its batch's error. */
  record(outcome: Outcome): Promise<void>;
  drain(): Promise<void>;
}

/**
 * Records outcomes as sets: the calls of one event-loop turn share ONE transaction in which the leases that hold are
 * read by one SELECT and their subscriptions by another, the attempts are one multi-row INSERT, the deliveries one
 * multi-row UPDATE and each subscription whose failure streak changes one UPDATE. A lost lease is found before anything is written and fails only its own call;
 * any other error rolls the whole turn back (every caller gets it; the deliveries are retried after their lease).
 * Outcomes commit relaxed (`ctx.relaxed`: no fsync, crash-safe; a power loss can only make a delivery pending again,
 * so it is sent once more).
 *
 * @example
 * ```ts
 * const recorder = createSqliteOutcomeRecorder(ctx);
 * await recorder.record(outcomeOf(lease, "delivered", { status: 200, latencyMs: 3 }, Date.now()));
 * ```
 */
export function createSqliteOutcomeRecorder(ctx: SqliteContext): SqliteOutcomeRecorder {
  // Held leases as one JSON value, subscription states as raw rows (arrays): better-sqlite3 builds an object per
  // row through V8's API, which costs more than the JSON.
  const heldLeases = ctx.sql(HELD_LEASES).pluck(true);
  const subscriptionStates = ctx.sql(SUBSCRIPTION_STATES).raw(true);
  const write = ctx.db.transaction((outcomes: Outcome[]): OutcomeResult[] => {
    const at = ctx.options.now();
    const leases = outcomes.map((o) => [
      typeof o.lease?.id === "number" ? o.lease.id : null,
      o.lease?.leaseToken,
    ]);
    // Keyed by delivery id (only numbers are looked up in it, so no inherited name is ever read).
    const held = JSON.parse(heldLeases.get(JSON.stringify(leases)) as string) as Record<
      number,
      string | undefined
    >;
    const subscriptions = new Map<string, { enabled: boolean; failingSince: number | null }>();
    const states = subscriptionStates.all(JSON.stringify([...new Set(Object.values(held))])) as [
      string,
      number,
      number | null,
    ][];
    for (const [id, enabled, failingSince] of states)
      subscriptions.set(id, { enabled: enabled === 1, failingSince });

    const plan = planTurn(outcomes, held, subscriptions, at);
    const { results, attemptRows, deliveryRows, effects } = plan;
    // The attempts first: they are numbered and attributed from the deliveries as they are before the update.
    // Spread, not one array: better-sqlite3 reads an array's values one by one through V8's API.
    inChunks(attemptRows, 6, (rows, values) => ctx.sql(insertAttemptsSql(rows)).run(...values));
    inChunks(deliveryRows, 8, (rows, values) => ctx.sql(updateDeliveriesSql(rows)).run(...values));
    const failingSince = new Map([...subscriptions].map(([id, s]) => [id, s.failingSince]));
    for (const [id, value] of netStreaks(effects, failingSince)) ctx.sql(SET_FAILING_SINCE).run(value, id);
    // A 410's disable commits with its outcome, and so do the operational webhooks: a crash cannot leave the gone
    // endpoint enabled, nor a disable or an exhausted delivery unreported.
    for (const id of plan.gone) disableSubscription(ctx, id, GONE_REASON, at, "gone");
    reportExhausted(ctx, plan.exhausted, at);
    return results;
  });

  const committer = new GroupCommitter(
    // runSqlite maps errors and waits out another process's lock asynchronously.
    (outcomes: Outcome[]) => runSqlite(ctx, () => ctx.relaxed(() => write.immediate(outcomes))),
    { maxBatch: ctx.options.maxBatchSize },
  );
  return {
    async record(outcome) {
      if (ctx.closed.aborted) throw storeClosedError();
      const result = await committer.submit(outcome);
      if (!result.ok) throw mapSqliteError(result.error);
    },
    drain: () => committer.drain(),
  };
}

/**
 * A turn's writes, planned: each outcome's result, the rows to insert and update, streak effects, gone subscriptions
 * and exhausted deliveries.
 */
interface TurnPlan {
  results: OutcomeResult[];
  attemptRows: unknown[];
  deliveryRows: unknown[];
  effects: { subscriptionId: string; effect: StreakEffect; at: number }[];
  gone: Set<string>;
  /** The deliveries a `failed` outcome ends, with their last attempt (`delivery.exhausted`). */
  exhausted: { deliveryId: number; last: { status: number | null; error: string | null } }[];
}

/**
 * Plans a turn's writes from its outcomes, in order: a lost lease fails its own outcome; a held one gets its
 * transition (`transitionOf`), its attempt row and its streak effect. After a `gone`, the turn's later outcomes of
 * that subscription see it disabled.
 */
function planTurn(
  outcomes: Outcome[],
  held: Record<number, string | undefined>,
  subscriptions: Map<string, { enabled: boolean; failingSince: number | null }>,
  at: number,
): TurnPlan {
  const plan: TurnPlan = {
    results: [],
    attemptRows: [],
    deliveryRows: [],
    effects: [],
    gone: new Set(),
    exhausted: [],
  };
  for (const outcome of outcomes) {
    const id = outcome.lease?.id;
    const subscriptionId = typeof id === "number" ? held[id] : undefined;
    if (subscriptionId === undefined) {
      plan.results.push({ ok: false, error: leaseLost(outcome.lease) });
      continue;
    }
    held[id] = undefined; // a second outcome for the same lease in this turn finds it finished
    const subscription = subscriptions.get(subscriptionId);
    const next = transitionOf(outcome, subscription?.enabled === true, at);
    if (LEASE_RULES[outcome.kind].disables) {
      plan.gone.add(subscriptionId);
      if (subscription) subscription.enabled = false;
    }
    const a = outcome.attempt;
    if (a) plan.attemptRows.push(id, a.at, a.status, a.latencyMs, a.responseBody, a.error);
    const { state, dueAt, counted, status, error, finishedAt } = next;
    plan.deliveryRows.push(id, state, dueAt, counted ? 1 : 0, status, error, finishedAt, at);
    plan.effects.push({ subscriptionId, effect: streakOf(outcome.kind), at: a?.at ?? at });
    if (outcome.kind === "failed") plan.exhausted.push({ deliveryId: id, last: lastAttempt(a) });
    plan.results.push({ ok: true });
  }
  return plan;
}
