import { type OperationalPayloads, operationalCatalog } from "@plant-store/spec";
import { OPERATOR_APPLICATION_ID, type Store } from "@plant-store/store";
import type { Logger } from "pino";

/** What an operational event says, without its `type` and `timestamp` (added here). */
type DataOf<T extends keyof OperationalPayloads> = OperationalPayloads[T]["data"];

/**
 * Publishes one of the sender's operational webhooks (spec/operational.yaml) to the operator's application: the
 * same outbox, catalog validation, signing and delivery as New Plant. Called after the change it reports was
 * committed; a failure to publish is logged and does not undo that change.
 *
 * @example
 * ```ts
 * await publishOperational(store, logger, "subscription.disabled", { subscriptionId, applicationId, url, reason: "gone", detail });
 * ```
 */
export async function publishOperational<T extends keyof OperationalPayloads>(
  store: Store,
  logger: Logger | undefined,
  type: T,
  data: DataOf<T>,
): Promise<void> {
  const event = { type, timestamp: new Date().toISOString(), data };
  try {
    await store.outbox.publish(JSON.stringify(event), {
      application: OPERATOR_APPLICATION_ID,
      eventType: type,
      catalog: operationalCatalog,
    });
  } catch (error) {
    logger?.error({ type, error: (error as Error).message }, "operational webhook not published");
  }
}

/**
 * Publishes `subscription.disabled` for a subscription just disabled, unless it is the operator's own (an
 * operational endpoint that fails is not reported to the operational endpoints, which could be the same one).
 *
 * @example
 * ```ts
 * await reportDisabled(store, logger, "sub_…", "gone");
 * ```
 */
export async function reportDisabled(
  store: Store,
  logger: Logger | undefined,
  subscriptionId: string,
  reason: "gone" | "failing" | "manual",
): Promise<void> {
  const found = await store.subscriptions.get(subscriptionId).catch(() => null);
  if (!found || found.applicationId === OPERATOR_APPLICATION_ID) return;
  await publishOperational(store, logger, "subscription.disabled", {
    subscriptionId,
    applicationId: found.applicationId,
    url: found.url,
    reason,
    detail: found.disabledReason ?? "",
  });
}

/**
 * Publishes `delivery.exhausted` for a delivery just failed for good, unless it went to the operator's own
 * application.
 *
 * @example
 * ```ts
 * await reportExhausted(store, logger, delivery, { status: 500, error: null });
 * ```
 */
export async function reportExhausted(
  store: Store,
  logger: Logger | undefined,
  delivery: { id: number; attempt: number; message: { id: string }; subscription: { id: string } },
  last: { status: number | null; error: string | null },
): Promise<void> {
  const found = await store.subscriptions.get(delivery.subscription.id).catch(() => null);
  if (!found || found.applicationId === OPERATOR_APPLICATION_ID) return;
  await publishOperational(store, logger, "delivery.exhausted", {
    deliveryId: delivery.id,
    messageId: delivery.message.id,
    subscriptionId: delivery.subscription.id,
    attempt: delivery.attempt,
    lastStatus: last.status,
    lastError: last.error,
  });
}
