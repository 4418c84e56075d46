import { randomUUID } from "node:crypto";
import type { PoolClient } from "pg";
import type { ClaimedDelivery } from "../api/outbox.js";
import type { SigningScheme } from "../api/subscriptions.js";
import type { ClaimPlan } from "../shared/claim-plan.js";
import { claimedSubscriptions } from "../shared/claimed-subscription.js";
import { DISABLED_REASON } from "../shared/outcomes.js";
import { traceCarrierOf } from "../shared/rows.js";
import {
  type DueCandidate,
  decideTargetClaim,
  rateHorizonMs,
  skippedTargets,
  type TargetClaimRow,
} from "../shared/target-claim.js";
import { type PgContext, query, transaction } from "./context.js";
import {
  CLAIM_BEGIN,
  destinationClaimRowsSql,
  destinationDueSql,
  failDisabledSql,
  headsSql,
  inFlightSql,
  leaseForwardsSql,
  limitedClaimRowsSql,
  limitedDueSql,
  setNextSendSql,
} from "./outbox-sql.js";

/** A due row of a target (int8 as a string). */
interface DueRow {
  id: string;
  subscription_id: string;
}

/** A row of `leaseForwardsSql` (int8 as strings). */
interface ForwardRow {
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
  secrets: string;
  signing: SigningScheme;
  headers: string | null;
  timeout_ms: number | null;
  max_in_flight: number | null;
  ordered: boolean;
}

/**
 * The claim of the receiver's destinations on PostgreSQL, one transaction: the destinations' rows locked
 * (`FOR NO KEY UPDATE`, so the claims of several receivers take turns — an ordered head or a rate limit holds across
 * processes — while the inbox's forward inserts, which only take KEY SHARE, go on), due rows `FOR UPDATE SKIP
 * LOCKED`, the endpoint options applied (`decideTargetClaim`), the picked rows leased and read with their inbox
 * event, and the rate-limited destinations' next send times moved.
 *
 * @example
 * ```ts
 * await claimDestinations(ctx, claimPlan(16, { leaseMs: 30_000, workerId: "w1", scope: "receiver" }));
 * ```
 */
export function claimDestinations(ctx: PgContext, plan: ClaimPlan): Promise<ClaimedDelivery[]> {
  return transaction(ctx, (client) => claimIn(ctx, client, plan, null), { begin: CLAIM_BEGIN });
}

/**
 * The sender's claim of its rate-limited subscriptions `ids` (those the one-statement claim passes over): the same
 * transaction as the destinations' — their rows locked `FOR NO KEY UPDATE` in id order (so the limit holds across
 * senders), their due rows `FOR UPDATE SKIP LOCKED`, the same `decideTargetClaim` — over those subscriptions only.
 *
 * @example
 * ```ts
 * await claimLimitedSubscriptions(ctx, claimPlan(16, { leaseMs: 30_000, workerId: "w1" }), ["sub_1"]);
 * ```
 */
export function claimLimitedSubscriptions(
  ctx: PgContext,
  plan: ClaimPlan,
  ids: readonly string[],
): Promise<ClaimedDelivery[]> {
  return transaction(ctx, (client) => claimIn(ctx, client, plan, ids), { begin: CLAIM_BEGIN });
}

/** The targets of the claim (locked) and their due candidates, those skipped left out; `null` when none. */
async function targetsAndDue(
  ctx: PgContext,
  client: PoolClient,
  plan: ClaimPlan,
  only: readonly string[] | null,
  at: number,
): Promise<{ targets: TargetClaimRow[]; candidates: DueCandidate[] } | null> {
  const { s } = ctx;
  const targets =
    only === null
      ? await query<TargetClaimRow>(ctx, destinationClaimRowsSql(s), [], client)
      : await query<TargetClaimRow>(ctx, limitedClaimRowsSql(s), [only], client);
  if (targets.length === 0) return null;
  const skip = [...plan.skip, ...skippedTargets(targets, at, rateHorizonMs(plan.leaseMs), plan.target)];
  // Every target skipped (paused, rate-limited, at its cap, a consumer or not the claim's target): their backlog is not walked for nothing.
  if (targets.every((t) => skip.includes(t.id))) return null;
  const due =
    only === null
      ? await query<DueRow>(ctx, destinationDueSql(s), [at, skip, plan.scan], client)
      : await query<DueRow>(
          ctx,
          limitedDueSql(s),
          [at, targets.filter((t) => !skip.includes(t.id)).map((t) => t.id), plan.scan],
          client,
        );
  if (due.length === 0) return null;
  return {
    targets,
    candidates: due.map((row) => ({ id: Number(row.id), subscriptionId: row.subscription_id })),
  };
}

async function claimIn(
  ctx: PgContext,
  client: PoolClient,
  plan: ClaimPlan,
  only: readonly string[] | null,
): Promise<ClaimedDelivery[]> {
  const { s } = ctx;
  const at = ctx.options.now();
  const found = await targetsAndDue(ctx, client, plan, only, at);
  if (found === null) return [];
  const { targets, candidates } = found;
  const byId = new Map(targets.map((t) => [t.id, t]));
  const present = [...new Set(candidates.map((c) => c.subscriptionId))];
  const ordered = present.filter((id) => byId.get(id)?.ordered === true);
  const capped = present.filter(
    (id) => byId.get(id)?.ordered !== true && byId.get(id)?.max_in_flight !== null,
  );
  const heads = new Map(
    ordered.length === 0
      ? []
      : (await query<{ subscription_id: string; head: string }>(ctx, headsSql(s), [ordered], client)).map(
          (r) => [r.subscription_id, Number(r.head)] as const,
        ),
  );
  const inFlight = new Map(
    capped.length === 0
      ? []
      : (await query<{ subscription_id: string; n: string }>(ctx, inFlightSql(s), [capped, at], client)).map(
          (r) => [r.subscription_id, Number(r.n)] as const,
        ),
  );
  const decision = decideTargetClaim(candidates, byId, heads, inFlight, plan, at);
  if (decision.fail.length > 0) {
    await query(ctx, failDisabledSql(s), [decision.fail.map((r) => r.id), at, DISABLED_REASON], client);
  }
  if (decision.lease.length === 0) return [];
  const leaseToken = randomUUID();
  const leaseUntil = at + plan.leaseMs;
  const rows = await query<ForwardRow>(
    ctx,
    leaseForwardsSql(s),
    [decision.lease.map((r) => r.id), leaseUntil, plan.workerId, leaseToken, at],
    client,
  );
  if (decision.nextSendAt.size > 0) {
    const entries = [...decision.nextSendAt];
    await query(
      ctx,
      setNextSendSql(s),
      [entries.map(([id]) => id), entries.map(([, t]) => Math.round(t))],
      client,
    );
  }
  const targetOf = claimedSubscriptions(ctx.box, at);
  return rows.map((r): ClaimedDelivery => {
    const notBefore = decision.notBefore.get(Number(r.id));
    return {
      id: Number(r.id),
      leaseToken,
      attempt: Number(r.attempts) + 1,
      leaseExpiresAt: new Date(leaseUntil),
      dueAt: new Date(Number(r.was_due)),
      message: {
        id: r.message_id,
        eventType: r.event_type,
        body: r.body,
        createdAt: new Date(Number(r.created_at)),
        traceContext: traceCarrierOf(r.trace_context),
      },
      subscription: targetOf(r.subscription_id, (id) => ({ ...r, id })),
      notBefore: notBefore === undefined || notBefore <= at ? null : new Date(notBefore),
    };
  });
}
