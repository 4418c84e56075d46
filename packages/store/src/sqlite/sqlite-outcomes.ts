import { storeClosedError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import {
  leaseLost,
  netStreaks,
  type Outcome,
  type OutcomeResult,
  type StreakEffect,
  streakOf,
  transitionOf,
} from "../shared/outcomes.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import {
  HELD_LEASES,
  insertAttemptsSql,
  SET_FAILING_SINCE,
  SUBSCRIPTION_STATES,
  updateDeliveriesSql,
} from "./outbox-sql.js";

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
  // Held leases as one JSON value, subscription states as raw rows (arrays): better-sqlite3 builds every row value
  // through V8's API, an object per row costing as much again.
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

    const results: OutcomeResult[] = [];
    const attemptRows: unknown[] = [];
    const deliveryRows: unknown[] = [];
    const effects: { subscriptionId: string; effect: StreakEffect; at: number }[] = [];
    for (const outcome of outcomes) {
      const id = outcome.lease?.id;
      const subscriptionId = typeof id === "number" ? held[id] : undefined;
      if (subscriptionId === undefined) {
        results.push({ ok: false, error: leaseLost(outcome.lease) });
        continue;
      }
      held[id] = undefined; // a second outcome for the same lease in this turn finds it finished
      const next = transitionOf(outcome, subscriptions.get(subscriptionId)?.enabled === true, at);
      const a = outcome.attempt;
      if (a) attemptRows.push(id, a.at, a.status, a.latencyMs, a.responseBody, a.error);
      deliveryRows.push(
        id,
        next.state,
        next.dueAt,
        next.counted ? 1 : 0,
        next.status,
        next.error,
        next.finishedAt,
        at,
      );
      effects.push({ subscriptionId, effect: streakOf(outcome.kind), at: a?.at ?? at });
      results.push({ ok: true });
    }
    // The attempts first: they are numbered and attributed from the deliveries as they are before the update.
    // Spread, not one array: better-sqlite3 reads an array's values one by one through V8's API (at most 512 here).
    inChunks(attemptRows, 6, (rows, values) => ctx.sql(insertAttemptsSql(rows)).run(...values));
    inChunks(deliveryRows, 8, (rows, values) => ctx.sql(updateDeliveriesSql(rows)).run(...values));
    const failingSince = new Map([...subscriptions].map(([id, s]) => [id, s.failingSince]));
    for (const [id, value] of netStreaks(effects, failingSince)) ctx.sql(SET_FAILING_SINCE).run(value, id);
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
