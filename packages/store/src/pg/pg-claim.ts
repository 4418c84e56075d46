import { randomUUID } from "node:crypto";
import type { ClaimedDelivery, ClaimOptions } from "../api/outbox.js";
import type { SigningScheme } from "../api/subscriptions.js";
import { type ClaimPlan, claimPlan } from "../shared/claim-plan.js";
import { claimedSubscriptions } from "../shared/claimed-subscription.js";
import { DISABLED_REASON } from "../shared/outcomes.js";
import { traceCarrierOf } from "../shared/rows.js";
import { heldClaimFailure, restAfterLimited } from "../shared/two-part-claim.js";
import { type PgContext, prepared, query, transaction } from "./context.js";
import { CLAIM_BEGIN, claimSql, compactCountsSql, rateLimitedSql } from "./outbox-sql.js";
import { claimDestinations, claimLimitedSubscriptions } from "./pg-target-claim.js";

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
  /** jsonb as text, NULL for none. */
  headers: string | null;
}

/** What the claim shares with the rest of the outbox: the notifier generation it saw, and the compaction count. */
export interface PgClaimState {
  claimGeneration: number;
  claimsSinceCompaction: number;
}

/**
 * The PostgreSQL outbox's `claim`: ONE statement (`claimSql`) selects due rows with `FOR UPDATE SKIP LOCKED` and
 * leases them; every {@link COMPACT_EVERY} claims the counter deltas are folded first. While sender subscriptions
 * have a rate limit (`ctx.rateGate`), their rows are claimed first by a transaction of their own with the endpoint
 * options applied (`claimLimitedSubscriptions`, the destinations' rule), then that statement claims the rest with
 * them passed over (`restAfterLimited`); with none, the claim is the one statement alone.
 *
 * @example
 * ```ts
 * const claim = pgClaimer(ctx, { claimGeneration: 0, claimsSinceCompaction: 0 });
 * await claim(64, { leaseMs: 30_000, workerId: "w1" });
 * ```
 */
export function pgClaimer(
  ctx: PgContext,
  state: PgClaimState,
): (limit: number, options: ClaimOptions) => Promise<ClaimedDelivery[]> {
  const claimDue = dueClaimer(ctx, state);
  const rateLimited = rateLimitedSql(ctx.s);
  const held = heldClaimFailure();
  return async (limit, options) => {
    const plan = claimPlan(limit, options);
    state.claimGeneration = ctx.outboxWork.generation;
    if (plan.scope === "receiver") return claimDestinations(ctx, plan);
    held.rethrow();
    const gate = ctx.rateGate;
    if (gate.stale()) gate.read((await query<{ id: string }>(ctx, rateLimited)).map((r) => r.id));
    if (!gate.open) return claimDue(plan);
    const limited = gate.ids;
    const claimed = await claimLimitedSubscriptions(ctx, plan, limited);
    const rest = restAfterLimited(plan, claimed.length, limited);
    if (rest === null) return claimed;
    try {
      for (const delivery of await claimDue(rest)) claimed.push(delivery);
    } catch (error) {
      return held.keep(claimed, error);
    }
    return claimed;
  };
}

/** The one-statement claim of a plan's due rows (those of rate-limited subscriptions passed over). */
function dueClaimer(ctx: PgContext, state: PgClaimState): (plan: ClaimPlan) => Promise<ClaimedDelivery[]> {
  const statement = prepared(claimSql(ctx.s));
  const compact = compactCountsSql(ctx.s);
  return async (plan) => {
    if (++state.claimsSinceCompaction >= COMPACT_EVERY) {
      state.claimsSinceCompaction = 0;
      await query(ctx, compact);
    }
    const at = ctx.options.now();
    const leaseToken = randomUUID();
    const leaseUntil = at + plan.leaseMs;
    const params = [
      at,
      plan.limit,
      leaseUntil,
      plan.workerId,
      leaseToken,
      plan.skip,
      plan.scan,
      plan.cap,
      DISABLED_REASON,
    ];
    const rows = await transaction(ctx, (client) => query<ClaimRow>(ctx, statement, params, client), {
      begin: CLAIM_BEGIN,
    });
    const subscriptionOf = claimedSubscriptions(ctx.box, at);
    // Pushed, not mapped: the array keeps the shape the worker's code was optimized for (see `activeSecretsOf`).
    const claimed: ClaimedDelivery[] = [];
    for (const r of rows) {
      claimed.push({
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
        subscription: subscriptionOf(r.subscription_id, (id) => ({ ...r, id })),
        notBefore: null,
      });
    }
    return claimed;
  };
}
