import {
  type ClaimedDelivery,
  type RecordedOutcome,
  type Store,
  StoreConflictError,
  StoreUnavailableError,
} from "@plant-store/store";

/**
 * Records an attempt's outcome in the outbox with ONE call (`outbox.record`: the attempt row, the delivery's state
 * and, for a 410, the subscription's disable in one transaction), retrying while the store is briefly unavailable
 * (a dropped connection, a lock) and the lease still holds: a lost outcome means the delivery is sent again once its
 * lease expires, and its attempt is missing from the history.
 *
 * @example
 * ```ts
 * await recordOutcome(store, delivery, settleOutcome(outcome, delivery.attempt));
 * ```
 */
export async function recordOutcome(
  store: Store,
  delivery: ClaimedDelivery,
  outcome: RecordedOutcome,
): Promise<void> {
  for (let wait = 50, retry = false; ; wait = Math.min(wait * 2, 1_000), retry = true) {
    try {
      await store.outbox.record(delivery, outcome);
      return;
    } catch (error) {
      // A retry that finds the lease gone while it still held: the previous try committed before its
      // connection failed (PostgreSQL), so the outcome is recorded.
      if (retry && error instanceof StoreConflictError && error.code === "lease_lost") return;
      const transient = error instanceof StoreUnavailableError && error.code === "store_unavailable";
      if (!transient || Date.now() + wait >= delivery.leaseExpiresAt.getTime()) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
