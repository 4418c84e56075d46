import { ForwardGate } from "./forward-gate.js";

/**
 * Which of the sender's subscriptions have a rate limit, as this process last read them: its own changes make it
 * look again at once, another process's are seen within `FORWARD_GATE_TTL_MS` (the same rule as the forward gate).
 * While none has one (`open` false) the sender's claim is its one statement, as without endpoint options; else those
 * subscriptions are left to the claim that applies the options (`decideTargetClaim`). Stale knowledge never breaks a
 * limit: the one-statement claim itself leaves rows of a rate-limited subscription unleased (it reads the column),
 * so a limit set elsewhere only delays that subscription's rows until the next look.
 *
 * @example
 * ```ts
 * if (ctx.rateGate.stale()) ctx.rateGate.read(await rateLimitedIds());
 * if (ctx.rateGate.open) claimLimited(ctx.rateGate.ids);
 * ```
 */
export class RateLimitedGate extends ForwardGate {
  ids: readonly string[] = [];

  /** Records what was read: the ids of the sender's subscriptions with a rate limit. */
  read(ids: readonly string[]): void {
    this.ids = ids;
    this.set(ids.length > 0);
  }
}
