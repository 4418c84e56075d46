import {
  type ClaimedDelivery,
  type Store,
  StoreConflictError,
  StoreUnavailableError,
} from "@plant-store/store";
import type { Logger } from "pino";
import type { AttemptResult } from "./attempt-result.js";

/**
 * Writes an attempt's result to the outbox: complete, reschedule or fail its lease with the attempt row (the store
 * writes the outcomes of one event-loop turn together), and disable the subscription when the result says so.
 *
 * @example
 * ```ts
 * const record = createOutcomeRecorder(store, logger);
 * await record(delivery, judgeAttempt(outcome, delivery.attempt, schedule, Date.now()));
 * ```
 */
export function createOutcomeRecorder(
  store: Store,
  logger?: Logger,
): (delivery: ClaimedDelivery, result: AttemptResult) => Promise<void> {
  return async (delivery, { action, attempt }) => {
    const lease = { id: delivery.id, leaseToken: delivery.leaseToken };
    if (action.kind === "complete") {
      await persist(delivery, () => store.outbox.complete(lease, { attempt }));
    } else if (action.kind === "retry") {
      await persist(delivery, () => store.outbox.reschedule(lease, action.at, { attempt }));
    } else {
      await persist(delivery, () => store.outbox.fail(lease, { attempt, reason: action.reason }));
      if (action.disable !== undefined) {
        const reason = action.disable;
        await persist(delivery, () => store.subscriptions.disable(delivery.subscription.id, reason));
        logger?.warn({ subscriptionId: delivery.subscription.id }, "subscription disabled: 410 Gone");
      }
    }
  };
}

/**
 * Runs a write, retrying while the store is briefly unavailable (a dropped connection, a lock) and the lease still
 * holds: a lost outcome means the delivery is sent again once its lease expires, and its attempt is missing from the
 * history.
 */
async function persist(delivery: ClaimedDelivery, write: () => Promise<unknown>): Promise<void> {
  for (let wait = 50, retry = false; ; wait = Math.min(wait * 2, 1_000), retry = true) {
    try {
      await write();
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
