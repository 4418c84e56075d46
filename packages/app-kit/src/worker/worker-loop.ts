import { launch } from "./worker-attempt.js";
import { releaseAll, type WorkerContext } from "./worker-context.js";

/**
 * The claimer: leases due deliveries in batches into the slot pool, and waits for room or for work; every
 * `sweepEveryMs` it disables the subscriptions failing for `disableAfterMs`. A store failure is retried after 1 s.
 *
 * @example
 * ```ts
 * const looping = claimLoop(ctx); // resolves once ctx.stopping is aborted
 * ```
 */
export async function claimLoop(ctx: WorkerContext): Promise<void> {
  let lastSweep = 0;
  while (!ctx.stopping.signal.aborted) {
    try {
      if (ctx.scope === "sender" && Date.now() - lastSweep > ctx.sweepEveryMs) {
        lastSweep = Date.now();
        await sweepFailing(ctx);
      }
      for (const delivery of ctx.pool.take()) launch(ctx, delivery);
      if (ctx.pool.waiting > 0) await releaseAll(ctx, ctx.pool.drop(Date.now() + ctx.timeoutMs + 1000));
      if (!hasRoom(ctx)) {
        await waitForRoom(ctx);
        continue;
      }
      await claimBatch(ctx);
    } catch (error) {
      if (ctx.stopping.signal.aborted) break;
      ctx.logger?.error(
        { error: (error as Error).message },
        "worker loop: the store failed; retrying in 1 s",
      );
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function sweepFailing(ctx: WorkerContext): Promise<void> {
  const disabled = await ctx.store.subscriptions.disableFailing(ctx.disableAfterMs);
  for (const id of disabled) {
    ctx.logger?.warn({ subscriptionId: id }, "subscription disabled: failing too long");
  }
}

/**
 * Whether a claim is worth its statement: every claim is a transaction whose cost barely depends on how many rows it
 * leases, so refilling a few freed slots at a time would cost PostgreSQL more per delivery than the rows themselves.
 * It waits until the worker holds no more deliveries than its concurrency (running and waiting), so each claim takes
 * a concurrency's worth or more while the deliveries already claimed keep the slots busy; and while as many outcomes
 * as slots wait for their commit. Holding exactly its concurrency, it claims only when no target is at its cap: a
 * worker holding its concurrency of one target capped at the concurrency would claim with that target skipped,
 * reading its whole backlog for nothing.
 */
function hasRoom(ctx: WorkerContext): boolean {
  const { pool } = ctx;
  const held = pool.inFlight + pool.waiting;
  return (
    pool.room > 0 &&
    ctx.recording < ctx.concurrency &&
    (pool.inFlight === 0 || held < ctx.concurrency || (held === ctx.concurrency && pool.full().length === 0))
  );
}

async function waitForRoom(ctx: WorkerContext): Promise<void> {
  await new Promise<void>((resolve) => {
    ctx.slotFreed = resolve;
    if (ctx.pool.waiting > 0) setTimeout(resolve, 1000).unref(); // leases of waiting deliveries
  });
  ctx.slotFreed = null;
}

/**
 * One claim into the pool. Subscriptions at their cap are skipped, and each other one gets at most its cap: a slow
 * subscriber's backlog cannot fill the claim and hold the others back. A claim that finds nothing waits for work.
 */
async function claimBatch(ctx: WorkerContext): Promise<void> {
  const { pool } = ctx;
  const skip = pool.full();
  const claimed = await ctx.store.outbox.claim(Math.min(pool.room, 128), {
    leaseMs: ctx.leaseMs,
    workerId: ctx.workerId,
    scope: ctx.scope,
    skipSubscriptions: skip,
    maxPerSubscription: ctx.perSubscription,
  });
  pool.add(claimed);
  for (const delivery of pool.take()) launch(ctx, delivery);
  if (claimed.length > 0) return;
  // A skipped subscription may have got room while the claim ran (its completion saw no idle wait to end).
  if (skip.some((sub) => pool.held(sub) < pool.capHeld(sub))) return;
  await waitIdle(ctx, skip);
}

/** Waits for new work, a retry of this worker coming due, or room for a skipped subscription. */
async function waitIdle(ctx: WorkerContext, skip: readonly string[]): Promise<void> {
  const untilDue = ctx.nextLocalDue - Date.now();
  if (untilDue <= 0) ctx.nextLocalDue = Number.POSITIVE_INFINITY;
  ctx.skippedWhenIdle = skip.length > 0 ? new Set(skip) : null;
  ctx.wake = new AbortController();
  await ctx.store.outbox.waitForWork(
    AbortSignal.any([ctx.stopping.signal, ctx.wake.signal]),
    Math.max(5, Math.min(1000, untilDue)),
  );
  ctx.wake = null;
  ctx.skippedWhenIdle = null;
}
