import { operationalCatalog } from "@plant-store/spec";
import type { PoolClient } from "pg";
import type { PublishOptions, PublishResult } from "../api/outbox.js";
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
import { type PgContext, query } from "./context.js";
import { pgPublisher } from "./pg-publish.js";

type Publish = (event: unknown, options?: PublishOptions) => Promise<PublishResult>;
/** Each store's publisher, built once (its statement texts name the schema). */
const publishers = new WeakMap<PgContext, Publish>();

/**
 * Publishes an operational event to the operator's application in the caller's transaction `client` (so it commits
 * or rolls back with the change it reports), through the outbox's own publish (NOTIFY at commit). Nothing is written
 * when no enabled operator subscription takes the type: a store nobody watches keeps no notices.
 *
 * @example
 * ```ts
 * await publishOperational(ctx, client, "application.deleted", { applicationId, uid, name, subscriptions }, at);
 * ```
 */
export async function publishOperational<T extends OperationalType>(
  ctx: PgContext,
  client: PoolClient,
  type: T,
  data: OperationalData<T>,
  at: number,
): Promise<void> {
  const [gate] = await query<{ takes: boolean }>(
    ctx,
    `SELECT EXISTS (SELECT 1 FROM ${ctx.s}.subscriptions WHERE application_id = $1 AND enabled
       AND (event_types IS NULL OR $2 = ANY(event_types))) AS takes`,
    [OPERATOR_APPLICATION_ID, type],
    client,
  );
  if (!gate?.takes) return;
  let publish = publishers.get(ctx);
  if (!publish) {
    publish = pgPublisher(ctx).publish; // only publishes with `tx`: its group is never used
    publishers.set(ctx, publish);
  }
  await publish(operationalEvent(type, data, at).body, {
    application: OPERATOR_APPLICATION_ID,
    eventType: type,
    catalog: operationalCatalog,
    tx: client,
  });
}

/**
 * `subscription.disabled` for a subscription (its row as the disable left it) just disabled for `cause` in the
 * caller's transaction, unless it is not reported (the operator's own, or a destination).
 */
export async function reportDisabled(
  ctx: PgContext,
  client: PoolClient,
  row: DisabledRow,
  cause: DisabledCause,
  at: number,
): Promise<void> {
  if (isReported(row.application_id))
    await publishOperational(ctx, client, "subscription.disabled", disabledData(row, cause), at);
}

/** The rows `subscription.disabled` reports of subscriptions `ids`, as they are now in the caller's transaction. */
export async function disabledRows(
  ctx: PgContext,
  client: PoolClient,
  ids: string[],
): Promise<DisabledRow[]> {
  return query<DisabledRow>(
    ctx,
    `SELECT id, application_id, url, disabled_reason FROM ${ctx.s}.subscriptions WHERE id = ANY($1::text[])`,
    [ids],
    client,
  );
}

/**
 * `delivery.exhausted` for each delivery just failed for good by an outcome of the caller's transaction (after its
 * update: `attempts` counts the last one), unless its subscription is not reported.
 */
export async function reportExhausted(
  ctx: PgContext,
  client: PoolClient,
  exhausted: { deliveryId: number; last: { status: number | null; error: string | null } }[],
  at: number,
): Promise<void> {
  if (exhausted.length === 0) return;
  const rows = await query<ExhaustedRow & { application_id: string | null }>(
    ctx,
    `SELECT d.id, d.message_id, d.subscription_id, d.attempts, sub.application_id
     FROM ${ctx.s}.deliveries d JOIN ${ctx.s}.subscriptions sub ON sub.id = d.subscription_id
     WHERE d.id = ANY($1::bigint[])`,
    [exhausted.map((e) => e.deliveryId)],
    client,
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  for (const { deliveryId, last } of exhausted) {
    const row = byId.get(deliveryId);
    if (row && isReported(row.application_id))
      await publishOperational(ctx, client, "delivery.exhausted", exhaustedData(row, last), at);
  }
}
