import { releaseAll, type WorkerOptions, workerContext } from "./worker-context.js";
import { claimLoop } from "./worker-loop.js";

/** A running worker. */
export interface Worker {
  /** Stops claiming; in-flight attempts finish (each bounded by its timeout); resolves when they have. */
  stop(): Promise<void>;
}

/**
 * Claims due deliveries with a lease, sends each through core's `deliver` (exact bytes, bearer, Standard Webhooks
 * headers, no redirects) and applies the outcome: 2xx completes; 410 fails the delivery and disables the
 * subscription; other failures retry on the schedule (with jitter, honouring a clamped Retry-After) until it is
 * exhausted, then fail (kept for resend); a refused address fails at once. Subscriptions failing for
 * `disableAfterMs` are disabled. Wakes on new work (LISTEN/NOTIFY on PostgreSQL) with polling as a fallback.
 *
 * Stages over one context (`worker-context.ts`): the claimer (`worker-loop.ts`) leases batches into the slot pool
 * (`slot-pool.ts`), which starts each delivery when its subscription has a slot; one attempt (`worker-attempt.ts`)
 * sends through `deliver`, settles the outcome into one value (`attempt-result.ts`) and records it with one call
 * (`outcome-recorder.ts`: `outbox.record`, a 410's disable in the same transaction).
 *
 * @example
 * ```ts
 * const worker = startWorker({ store, transport: guard.transport, concurrency: 32 });
 * process.once("SIGTERM", () => worker.stop());
 * ```
 */
export function startWorker(options: WorkerOptions): Worker {
  const ctx = workerContext(options);
  const looping = claimLoop(ctx);
  return {
    async stop() {
      ctx.stopping.abort();
      ctx.slotFreed?.();
      await looping;
      await Promise.all(ctx.running);
      // Claimed but never started: hand them back now rather than after their lease expires.
      await releaseAll(ctx, ctx.pool.drop());
    },
  };
}
