import type { DeliveryState } from "../api/outbox.js";
import { StoreConflictError } from "../errors.js";

/**
 * Whether delivery `id` may be resent, as read under its lock: it exists, is not being attempted, and its
 * subscription is enabled. Throws `not_found`, `delivery_in_flight` or `subscription_disabled`.
 *
 * @example
 * ```ts
 * checkResendable(42, { state: "failed", enabled: true }); // passes
 * ```
 */
export function checkResendable(
  id: number,
  current: { state: DeliveryState; enabled: boolean } | undefined,
): void {
  if (!current) throw new StoreConflictError("not_found", `Delivery ${id} does not exist.`);
  if (current.state === "leased") {
    throw new StoreConflictError(
      "delivery_in_flight",
      `Delivery ${id} is being attempted; resend it afterwards.`,
    );
  }
  if (!current.enabled) {
    throw new StoreConflictError(
      "subscription_disabled",
      `Delivery ${id} belongs to a disabled subscription; enable it first.`,
    );
  }
}

/**
 * Whether subscription `id`'s failed deliveries may be recovered, given whether it is `enabled` (`undefined`: it
 * does not exist). Throws `not_found` or `subscription_disabled`.
 *
 * @example
 * ```ts
 * checkRecoverable("sub_1", true); // passes
 * ```
 */
export function checkRecoverable(id: string, enabled: boolean | undefined): void {
  if (enabled === undefined) {
    throw new StoreConflictError("not_found", `Subscription ${JSON.stringify(id)} does not exist.`);
  }
  if (!enabled) {
    throw new StoreConflictError(
      "subscription_disabled",
      "Enable the subscription before recovering its deliveries.",
    );
  }
}
