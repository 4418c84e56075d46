import { type OperationalPayloads, operationalCatalog } from "@plant-store/spec";
import { OPERATOR_APPLICATION_ID } from "./application-rules.js";
import { type PreparedEvent, prepareEvent } from "./prepare-event.js";

/** An operational webhook's type (spec/operational.yaml). */
export type OperationalType = keyof OperationalPayloads;
/** What an operational event says, without its `type` and `timestamp`. */
export type OperationalData<T extends OperationalType> = OperationalPayloads[T]["data"];
/** Why a subscription was disabled, as `subscription.disabled` says: a 410, failing too long, or by hand. */
export type DisabledCause = OperationalData<"subscription.disabled">["reason"];

/**
 * The exact bytes of an operational event at `at`, validated against its schema in `operationalCatalog` like any
 * published event. Both backends publish it to the operator's application in the transaction of the change it
 * reports (docs/decisions.md D36).
 *
 * @example
 * ```ts
 * operationalEvent("application.deleted", { applicationId: "app_…", uid: "acme", name: "Acme", subscriptions: 2 }, Date.now());
 * ```
 */
export function operationalEvent<T extends OperationalType>(
  type: T,
  data: OperationalData<T>,
  at: number,
): PreparedEvent {
  const event = { type, timestamp: new Date(at).toISOString(), data };
  return prepareEvent(JSON.stringify(event), { eventType: type, catalog: operationalCatalog });
}

/**
 * Whether a change to a target of application `applicationId` is reported: a sender subscription of any application
 * but the operator's (an operational endpoint that fails is not reported to the operational endpoints, which could
 * be the same one). A receiver's destination belongs to no application and is never reported.
 */
export function isReported(applicationId: string | null | undefined): applicationId is string {
  return typeof applicationId === "string" && applicationId !== OPERATOR_APPLICATION_ID;
}

/** A subscription's columns `subscription.disabled` reports. */
export interface DisabledRow {
  id: string;
  application_id: string;
  url: string;
  disabled_reason: string | null;
}

/** `subscription.disabled`'s data for a subscription just disabled for `cause`. */
export const disabledData = (
  row: DisabledRow,
  cause: DisabledCause,
): OperationalData<"subscription.disabled"> => ({
  subscriptionId: row.id,
  applicationId: row.application_id,
  url: row.url,
  reason: cause,
  detail: row.disabled_reason ?? "",
});

/** A delivery's columns (after its outcome) and its last attempt, as `delivery.exhausted` reports them. */
export interface ExhaustedRow {
  id: number | string;
  message_id: string;
  subscription_id: string;
  attempts: number | string;
}

/** `delivery.exhausted`'s data for a delivery just failed for good. */
export const exhaustedData = (
  row: ExhaustedRow,
  last: { status: number | null; error: string | null },
): OperationalData<"delivery.exhausted"> => ({
  deliveryId: Number(row.id),
  messageId: row.message_id,
  subscriptionId: row.subscription_id,
  attempt: Number(row.attempts),
  lastStatus: last.status,
  lastError: last.error,
});

/** The last attempt of an outcome, as `delivery.exhausted` reports it. */
export const lastAttempt = (attempt: { status: number | null; error: string | null } | undefined) => ({
  status: attempt?.status ?? null,
  error: attempt?.error ?? null,
});
