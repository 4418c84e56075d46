import { StoreUnavailableError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import {
  leaseLost,
  netStreaks,
  nextRow,
  type Outcome,
  type OutcomeResult,
  streakOf,
} from "../shared/outcomes.js";
import { mapSqliteError, runSqlite, type SqliteContext } from "./context.js";
import { insertAttemptsSql, LEASED_ROWS, SET_FAILING_SINCE, updateDeliveriesSql } from "./outbox-sql.js";

/** Rows per multi-row statement: 64 × 8 parameters, well under SQLite's limit; one cached statement per size. */
const CHUNK = 64;

/** A row of `LEASED_ROWS`, read raw (an array: cheaper to build than an object per row). */
type LeasedRow = [
  id: number,
  leaseToken: string,
  subscriptionId: string,
  attempts: number,
  dueAt: number,
  leaseOwner: string | null,
  lastStatus: number | null,
  lastError: string | null,
  enabled: number,
  failingSince: number | null,
];

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
 * Records outcomes as sets: the calls of one event-loop turn share ONE transaction in which every lease is read by
 * one SELECT, the attempts are one multi-row INSERT, the deliveries one multi-row UPDATE and each subscription whose
 * failure streak changes one UPDATE. A lost lease is found before anything is written and fails only its own call;
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
  const leasedRows = ctx.sql(LEASED_ROWS).raw(true);
  const write = ctx.db.transaction((outcomes: Outcome[]): OutcomeResult[] => {
    const at = ctx.options.now();
    const ids = outcomes.map((o) => (typeof o.lease?.id === "number" ? o.lease.id : null));
    const rows = new Map<number, LeasedRow>();
    for (const row of leasedRows.all(JSON.stringify(ids)) as LeasedRow[]) rows.set(row[0], row);

    const results: OutcomeResult[] = [];
    const attemptRows: unknown[] = [];
    const deliveryRows: unknown[] = [];
    const effects: { subscriptionId: string; effect: ReturnType<typeof streakOf>; at: number }[] = [];
    const failingSince = new Map<string, number | null>();
    for (const outcome of outcomes) {
      const row = rows.get(outcome.lease?.id);
      if (!row || row[1] !== outcome.lease.leaseToken) {
        results.push({ ok: false, error: leaseLost(outcome.lease) });
        continue;
      }
      const [id, , subscriptionId, attempts, dueAt, leaseOwner, lastStatus, lastError, enabled, failing] =
        row;
      rows.delete(id); // a second outcome for the same lease in this turn finds it finished
      const next = nextRow(outcome, { attempts, dueAt, lastStatus, lastError, enabled: enabled === 1 }, at);
      const a = outcome.attempt;
      if (a) {
        attemptRows.push(id, next.attempts, a.at, a.status, a.latencyMs, a.responseBody, a.error, leaseOwner);
      }
      deliveryRows.push(
        id,
        next.state,
        next.dueAt,
        next.attempts,
        next.lastStatus,
        next.lastError,
        next.finishedAt,
        at,
      );
      failingSince.set(subscriptionId, failing);
      effects.push({ subscriptionId, effect: streakOf(outcome.kind), at: a?.at ?? at });
      results.push({ ok: true });
    }
    inChunks(attemptRows, 8, (rows, values) => ctx.sql(insertAttemptsSql(rows)).run(values));
    inChunks(deliveryRows, 8, (rows, values) => ctx.sql(updateDeliveriesSql(rows)).run(values));
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
      if (ctx.closed.aborted)
        throw new StoreUnavailableError("The store is closed.", { code: "store_closed" });
      const result = await committer.submit(outcome);
      if (!result.ok) throw mapSqliteError(result.error);
    },
    drain: () => committer.drain(),
  };
}
