import { GONE_REASON } from "@plant-store/core";
import { StoreUnavailableError, storeClosedError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import {
  DISABLED_REASON,
  disabledPendingError,
  leaseLost,
  type Outcome,
  type OutcomeResult,
} from "../shared/outcomes.js";
import { type PgContext, query, transaction } from "./context.js";
import { failPendingOfSql, finishManySql } from "./outbox-sql.js";

/** The outbox's outcome recorder: writes lease transitions, a turn's worth at a time. */
export interface PgOutcomeRecorder {
  /** Resolves once the outcome is committed; rejects with `lease_lost` alone, or with its batch's error. */
  record(outcome: Outcome): Promise<void>;
  drain(): Promise<void>;
}

/**
 * Records the outcomes of one event-loop turn (and those arriving while the previous batch is in flight) as ONE
 * statement (`finishManySql`): the lease checks, state moves, attempt rows, streak updates and 410 disables of the
 * whole batch, committed together (with a 410's pending deliveries failed in the same transaction). An outcome whose lease is gone fails alone with `lease_lost`; an error of the statement fails
 * the batch, and each caller may retry its own outcome.
 *
 * @example
 * ```ts
 * const recorder = createPgOutcomeRecorder(ctx);
 * await recorder.record(outcomeOf(lease, "delivered", { status: 200, latencyMs: 3 }, Date.now()));
 * ```
 */
export function createPgOutcomeRecorder(ctx: PgContext): PgOutcomeRecorder {
  const statement = finishManySql(ctx.s);
  const failPending = failPendingOfSql(ctx.s);

  async function write(outcomes: Outcome[]): Promise<OutcomeResult[]> {
    const at = ctx.options.now();
    const params = [...outcomeColumns(outcomes, at), at, GONE_REASON, DISABLED_REASON];
    let rows: { ord: string; gone: string | null }[];
    if (!outcomes.some((o) => o.kind === "gone")) rows = await query(ctx, statement, params);
    else {
      // A 410: its subscription's pending deliveries fail in the same transaction as the outcome and the disable.
      rows = await transaction(
        ctx,
        async (client) => {
          const finished = await query<{ ord: string; gone: string | null }>(ctx, statement, params, client);
          const gone = [...new Set(finished.flatMap((row) => (row.gone === null ? [] : [row.gone])))];
          if (gone.length > 0)
            await query(ctx, failPending, [gone, disabledPendingError(GONE_REASON), at], client);
          return finished;
        },
        { bulk: true },
      );
    }
    const held = new Set(rows.map((row) => Number(row.ord)));
    return outcomes.map((outcome, i) =>
      held.has(i + 1) ? { ok: true } : { ok: false, error: leaseLost(outcome.lease) },
    );
  }

  const committer = new GroupCommitter(write, { maxBatch: ctx.options.maxBatchSize });
  return {
    async record(outcome) {
      if (ctx.closed.aborted) throw storeClosedError();
      const result = await committer.submit(outcome);
      if (!result.ok) throw result.error;
    },
    drain: () => committer.drain(),
  };
}

/** The first eleven parameters of `finishManySql`: one array per column, one element per outcome. */
function outcomeColumns(outcomes: Outcome[], at: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  const [ids, tokens, kinds, nextAts, hasAttempt, attemptedAt, statuses, latencies, bodies, errors, reasons] =
    columns as [
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
    ];
  // The same lease twice in one batch: the second finds it finished, as it would one turn later (it is sent
  // without a token, so it matches no row).
  const seen = new Set<string>();
  for (const outcome of outcomes) {
    const key = `${outcome.lease?.id}:${outcome.lease?.leaseToken}`;
    const token =
      typeof outcome.lease?.leaseToken === "string" && !seen.has(key) ? outcome.lease.leaseToken : null;
    seen.add(key);
    const a = outcome.attempt;
    ids.push(Number.isSafeInteger(outcome.lease?.id) ? outcome.lease.id : null);
    tokens.push(token);
    kinds.push(outcome.kind);
    nextAts.push(outcome.nextAt);
    hasAttempt.push(a !== undefined);
    attemptedAt.push(a?.at ?? at);
    statuses.push(a?.status ?? null);
    latencies.push(a?.latencyMs ?? 0);
    bodies.push(a?.responseBody ?? null);
    errors.push(a?.error ?? null);
    reasons.push(outcome.reason);
  }
  return columns;
}
