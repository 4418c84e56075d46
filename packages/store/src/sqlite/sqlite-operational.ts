import { OPERATOR_APPLICATION_ID } from "../shared/application-rules.js";
import {
  type DisabledCause,
  type DisabledRow,
  disabledData,
  type ExhaustedRow,
  exhaustedData,
  isReported,
  type OperationalData,
  type OperationalType,
  operationalEvent,
} from "../shared/operational.js";
import type { SqliteContext } from "./context.js";
import { publishOne } from "./sqlite-publisher.js";

/** Whether an enabled subscription of the operator's application takes a type. Params: its id, the type. */
const OPERATOR_TAKES = `SELECT EXISTS (SELECT 1 FROM subscriptions
  WHERE application_id = ? AND enabled = 1
    AND (event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?)))`;

/**
 * Publishes an operational event to the operator's application inside the caller's transaction (so it commits or
 * rolls back with the change it reports), through the publisher's own `publishOne`. Nothing is written when no
 * enabled operator subscription takes the type: a store nobody watches keeps no notices. Returns whether it made a
 * delivery (and woke this process's workers).
 *
 * @example
 * ```ts
 * publishOperational(ctx, "application.deleted", { applicationId, uid, name, subscriptions }, at);
 * ```
 */
export function publishOperational<T extends OperationalType>(
  ctx: SqliteContext,
  type: T,
  data: OperationalData<T>,
  at: number,
): boolean {
  if (!ctx.sql(OPERATOR_TAKES).pluck().get(OPERATOR_APPLICATION_ID, type)) return false;
  const { body, eventType } = operationalEvent(type, data, at);
  const published = publishOne(ctx, {
    application: OPERATOR_APPLICATION_ID,
    body,
    eventType,
    key: null,
    traceContext: null,
    at,
  });
  // A wake-up before the commit is harmless: the claim that follows runs after this synchronous transaction.
  if (published.deliveries > 0) ctx.outboxWork.emit();
  return published.deliveries > 0;
}

/**
 * `subscription.disabled` for subscription `id`, just disabled for `cause` in the caller's transaction, unless it is
 * not reported (the operator's own, or a destination).
 */
export function reportDisabled(ctx: SqliteContext, id: string, cause: DisabledCause, at: number): void {
  const row = ctx
    .sql("SELECT id, application_id, url, disabled_reason FROM subscriptions WHERE id = ?")
    .get(id) as DisabledRow | undefined;
  if (row && isReported(row.application_id))
    publishOperational(ctx, "subscription.disabled", disabledData(row, cause), at);
}

/**
 * `delivery.exhausted` for each delivery just failed for good by an outcome of the caller's transaction (after its
 * update: `attempts` counts the last one), unless its subscription is not reported.
 */
export function reportExhausted(
  ctx: SqliteContext,
  exhausted: { deliveryId: number; last: { status: number | null; error: string | null } }[],
  at: number,
): void {
  if (exhausted.length === 0) return;
  const read = ctx.sql(
    `SELECT d.id, d.message_id, d.subscription_id, d.attempts, s.application_id
     FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.id = ?`,
  );
  for (const { deliveryId, last } of exhausted) {
    const row = read.get(deliveryId) as (ExhaustedRow & { application_id: string | null }) | undefined;
    if (row && isReported(row.application_id))
      publishOperational(ctx, "delivery.exhausted", exhaustedData(row, last), at);
  }
}
