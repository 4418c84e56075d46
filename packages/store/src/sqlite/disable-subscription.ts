import type { DisabledCause } from "../shared/operational.js";
import { disabledPendingError } from "../shared/outcomes.js";
import type { SqliteContext } from "./context.js";
import { DISABLE_ENABLED, FAIL_PENDING_OF } from "./outbox-sql.js";
import { reportDisabled } from "./sqlite-operational.js";

/**
 * Disables subscription `id` with `reason` inside the caller's transaction, and fails its pending deliveries (they
 * would never be claimed usefully; `recover` brings them back). A subscription already disabled is left as it is:
 * its deliveries were failed then, and a disabled one gets no new ones. Used by `subscriptions.disable` and by the
 * outbox when it records a `gone` outcome, so a 410 and its disable commit together. With a `cause` (a sender
 * subscription's disable), `subscription.disabled` is published in the same transaction (docs/decisions.md D36).
 *
 * @example
 * ```ts
 * ctx.db.transaction(() => disableSubscription(ctx, "sub_1", "Disabled by an operator.", Date.now())).immediate();
 * ```
 */
export function disableSubscription(
  ctx: SqliteContext,
  id: string,
  reason: string,
  at: number,
  cause?: DisabledCause,
): boolean {
  const disabled = ctx.sql(DISABLE_ENABLED).run(reason, at, at, id).changes > 0;
  if (disabled) ctx.sql(FAIL_PENDING_OF).run(disabledPendingError(reason), at, at, id);
  if (disabled && cause !== undefined) reportDisabled(ctx, id, cause, at);
  return disabled;
}
