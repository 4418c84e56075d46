import { GONE_REASON } from "@plant-store/core";
import type { PoolClient } from "pg";
import { storeClosedError } from "../errors.js";
import { GroupCommitter } from "../shared/group-commit.js";
import { lastAttempt } from "../shared/operational.js";
import {
  disabledPendingError,
  LEASE_RULES,
  leaseLost,
  type Outcome,
  type OutcomeResult,
  streakOf,
  streakStep,
  transitionOf,
} from "../shared/outcomes.js";
import { type PgContext, type PreparedStatement, prepared, query, transaction } from "./context.js";
import { failPendingOfSql, finishManySql } from "./outbox-sql.js";
import { disabledRows, reportDisabled, reportExhausted } from "./pg-operational.js";

/** The outbox's outcome recorder: writes lease transitions, a turn's worth at a time. */
export interface PgOutcomeRecorder {
  /** Resolves once the outcome is committed; rejects with `lease_lost` alone, or with its batch's error. */
  record(outcome: Outcome): Promise<void>;
  drain(): Promise<void>;
}

/**
 * Records the outcomes of one event-loop turn (and those arriving while the previous batch is in flight) as ONE
 * statement (`finishManySql`): the lease checks, state moves, attempt rows, streak updates and 410 disables of the
 * whole batch, committed together (with a 410's pending deliveries failed, and the operational webhooks a 410 or a
 * delivery failed for good causes published, in the same transaction). An outcome whose lease is gone fails alone
 * with `lease_lost`; an error of the statement fails the batch, and each caller may retry its own outcome.
 *
 * @example
 * ```ts
 * const recorder = createPgOutcomeRecorder(ctx);
 * await recorder.record(outcomeOf(lease, "delivered", { status: 200, latencyMs: 3 }, Date.now()));
 * ```
 */
export function createPgOutcomeRecorder(ctx: PgContext): PgOutcomeRecorder {
  const statement = prepared(finishManySql(ctx.s));
  const failPending = failPendingOfSql(ctx.s);

  async function write(outcomes: Outcome[]): Promise<OutcomeResult[]> {
    const at = ctx.options.now();
    const params = finishManyParams(outcomes, at);
    // A 410 or a delivery failed for good: a transaction, so that what they cause commits with them.
    const rows = outcomes.some((o) => LEASE_RULES[o.kind].disables || o.kind === "failed")
      ? await transaction(
          ctx,
          (client) => finishAndReport(ctx, client, { statement, failPending }, outcomes, params, at),
          { bulk: true },
        )
      : await query<FinishedRow>(ctx, statement, params);
    const held = heldOrdinals(rows);
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

/** A row of `finishManySql`: a held outcome's ordinal, with the subscription of a held disabling one. */
type FinishedRow = { ord: string; gone: string | null };
const heldOrdinals = (rows: FinishedRow[]) => new Set(rows.map((row) => Number(row.ord)));

/**
 * The turn's statement in a transaction with what it causes: a 410's subscription's pending deliveries failed and
 * `subscription.disabled` published (when this turn disabled it: it was enabled before), and `delivery.exhausted`
 * for each held `failed` outcome (docs/decisions.md D36).
 */
async function finishAndReport(
  ctx: PgContext,
  client: PoolClient,
  sql: { statement: PreparedStatement; failPending: string },
  outcomes: Outcome[],
  params: unknown[],
  at: number,
): Promise<FinishedRow[]> {
  const disabling = outcomes.some((o) => LEASE_RULES[o.kind].disables);
  const wasEnabled = new Set(
    !disabling
      ? []
      : (
          await query<{ id: string; enabled: boolean }>(
            ctx,
            // Every subscription the turn's statement will update, locked in id order before it runs (the same
            // order as the claims' locks, so no cycle): a second sender's 410 for the same subscription waits
            // here, then reads it disabled, so `subscription.disabled` is published once.
            `SELECT sub.id, sub.enabled FROM ${ctx.s}.subscriptions sub
             WHERE sub.id IN (SELECT d.subscription_id FROM ${ctx.s}.deliveries d WHERE d.id = ANY($1::bigint[]))
             ORDER BY sub.id FOR NO KEY UPDATE`,
            [outcomes.map((o) => o.lease?.id).filter((id) => Number.isSafeInteger(id))],
            client,
          )
        ).flatMap((row) => (row.enabled ? [row.id] : [])),
  );
  const finished = await query<FinishedRow>(ctx, sql.statement, params, client);
  const gone = [...new Set(finished.flatMap((row) => (row.gone === null ? [] : [row.gone])))];
  if (gone.length > 0) {
    await query(ctx, sql.failPending, [gone, disabledPendingError(GONE_REASON), at], client);
    const disabled = gone.filter((id) => wasEnabled.has(id));
    if (disabled.length > 0)
      for (const row of await disabledRows(ctx, client, disabled))
        await reportDisabled(ctx, client, row, "gone", at);
  }
  const held = heldOrdinals(finished);
  const exhausted = outcomes.flatMap((o, i) =>
    o.kind === "failed" && held.has(i + 1) ? [{ deliveryId: o.lease.id, last: lastAttempt(o.attempt) }] : [],
  );
  await reportExhausted(ctx, client, exhausted, at);
  return finished;
}

/** The parameters of `finishManySql` for a turn's outcomes at `at` (exported for the plan test). */
export const finishManyParams = (outcomes: Outcome[], at: number): unknown[] => [
  ...outcomeColumns(outcomes, at),
  at,
  GONE_REASON,
];

/** The columns of `finishManySql`'s per-outcome parameters, in order. */
const COLUMNS = 19;

/**
 * The first nineteen parameters of `finishManySql`: one array per column, one element per outcome, each outcome's
 * transitions decided by `transitionOf` (for an enabled and a disabled subscription) and its streak by `streakStep`.
 */
function outcomeColumns(outcomes: Outcome[], at: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: COLUMNS }, () => []);
  // The same lease twice in one batch: the second finds it finished, as it would one turn later (it is sent
  // without a token, so it matches no row).
  const seen = new Set<string>();
  for (const outcome of outcomes) {
    const key = `${outcome.lease?.id}:${outcome.lease?.leaseToken}`;
    const token =
      typeof outcome.lease?.leaseToken === "string" && !seen.has(key) ? outcome.lease.leaseToken : null;
    seen.add(key);
    const a = outcome.attempt;
    const on = transitionOf(outcome, true, at);
    const off = transitionOf(outcome, false, at);
    const step = streakStep(streakOf(outcome.kind), a?.at ?? at);
    const row = [
      Number.isSafeInteger(outcome.lease?.id) ? outcome.lease.id : null,
      token,
      on.counted,
      a?.at ?? at,
      on.status,
      a?.latencyMs ?? 0,
      a?.responseBody ?? null,
      a?.error ?? null,
      on.state,
      on.dueAt,
      on.error,
      on.finishedAt,
      off.state,
      off.dueAt,
      off.error,
      off.finishedAt,
      step.keep,
      step.startsAt,
      LEASE_RULES[outcome.kind].disables,
    ];
    for (let c = 0; c < COLUMNS; c++) columns[c]?.push(row[c]);
  }
  return columns;
}
