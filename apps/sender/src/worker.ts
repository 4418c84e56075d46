import { createLineWriter, logText } from "@plant-store/app-kit";
import { deliver, STANDARD_SCHEDULE_MS, type Transport } from "@plant-store/core";
import type { ClaimedDelivery, Store } from "@plant-store/store";
import type { Logger } from "pino";
import { judgeAttempt, loggedOutcome } from "./attempt-result.js";
import type { SenderMetrics } from "./metrics.js";
import { createOutcomeRecorder } from "./outcome-recorder.js";
import { SlotPool } from "./slot-pool.js";
import { senderTracer, startAttemptSpan, traceAttempt } from "./tracing.js";

/** Options of {@link startWorker}. */
export interface WorkerOptions {
  store: Store;
  /** How attempts are sent: the SSRF guard's (`createGuardedFetch(...).transport`). Required, so no worker sends unguarded. */
  transport: Transport;
  metrics?: SenderMetrics;
  logger?: Logger;
  /** Deliveries in flight in all. Default 64. */
  concurrency?: number;
  /** Deliveries in flight per subscription. Default 16. */
  perSubscription?: number;
  /** Per attempt. Default 15 s. */
  timeoutMs?: number;
  /** Retry schedule in ms (first entry: delay before the first attempt, normally 0). */
  schedule?: readonly number[];
  /** Disable a subscription failing continuously this long. Default 5 days. */
  disableAfterMs?: number;
  /** Lease per claimed delivery: after a crash, its deliveries are retried once it expires. Default timeout + 5 s. */
  leaseMs?: number;
  workerId?: string;
  /**
   * The sender's `whsk_` ed25519 private keys (several during a rotation): subscriptions signing `asymmetric` or
   * `both` get one `v1a` signature per key. Default none.
   */
  privateKeys?: readonly string[];
}

/** A running worker. */
export interface Worker {
  /** Stops claiming; in-flight attempts finish (each bounded by its timeout); resolves when they have. */
  stop(): Promise<void>;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The fields of an attempt's log line, in the order they are written (message `attempt`). Exported for the bench's
 * signed loop (bench/run.mjs), not from the package.
 */
export const ATTEMPT_LINE_KEYS = [
  "messageId",
  "deliveryId",
  "subscriptionId",
  "attempt",
  "outcome",
  "status",
  "ms",
  "error",
] as const;

/**
 * Claims due deliveries with a lease, sends each through core's `deliver` (exact bytes, bearer, Standard Webhooks
 * headers, no redirects) and applies the outcome: 2xx completes; 410 fails the delivery and disables the
 * subscription; other failures retry on the schedule (with jitter, honouring a clamped Retry-After) until it is
 * exhausted, then fail (kept for resend); a refused address fails at once. Subscriptions failing for
 * `disableAfterMs` are disabled. Wakes on new work (LISTEN/NOTIFY on PostgreSQL) with polling as a fallback.
 *
 * Stages: the claimer (the loop below) leases batches into the slot pool (`slot-pool.ts`), which starts each
 * delivery when its subscription has a slot; one attempt is one call of `attempt(delivery)`, whose result is a value
 * (`attempt-result.ts`) that the outcome recorder (`outcome-recorder.ts`) writes to the outbox.
 *
 * @example
 * ```ts
 * const worker = startWorker({ store, transport: guard.transport, concurrency: 32 });
 * process.once("SIGTERM", () => worker.stop());
 * ```
 */
export function startWorker(options: WorkerOptions): Worker {
  const { store, metrics, logger } = options;
  const concurrency = options.concurrency ?? 64;
  const perSubscription = options.perSubscription ?? 16;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const schedule = options.schedule ?? STANDARD_SCHEDULE_MS;
  const privateKeys = options.privateKeys ?? [];
  const leaseMs = options.leaseMs ?? timeoutMs + 5_000;
  const workerId = options.workerId ?? `sender-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const disableAfterMs = options.disableAfterMs ?? 5 * DAY;
  // How often failing subscriptions are checked: every minute, or sooner when the limit itself is short (tests).
  const sweepEveryMs = Math.min(60_000, Math.max(50, disableAfterMs / 4));
  const pool = new SlotPool(concurrency, perSubscription);
  const record = createOutcomeRecorder(store, logger);
  // The line `logger.info(fields, "attempt")` writes, without pino's per-key lookups (app-kit's createLineWriter).
  const attemptLine = logger && createLineWriter(logger, "info", "attempt", ATTEMPT_LINE_KEYS);
  const tracer = senderTracer();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  let slotFreed: (() => void) | null = null;
  // The earliest retry this worker scheduled: the idle wait ends then, so short retry delays are kept
  // (new work wakes the loop at once through waitForWork; the 1 s poll covers other workers' retries).
  let nextLocalDue = Number.POSITIVE_INFINITY;
  let wake: AbortController | null = null;
  // The subscriptions skipped by the last claim, when it found nothing: one of them getting room ends the idle wait.
  let skippedWhenIdle: Set<string> | null = null;

  /**
   * One attempt: the delivery's subscription and message sent through core's `deliver`, its result recorded. With
   * an OpenTelemetry SDK registered it is a CLIENT span continuing the publish's trace, whose context the request
   * carries (`traceparent`); without one, nothing but the `tracer()` lookup.
   */
  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const { subscription, message } = delivery;
    const target = {
      url: subscription.url,
      token: subscription.token,
      secrets: subscription.signing === "asymmetric" ? [] : subscription.secrets,
      privateKeys: subscription.signing === "symmetric" ? [] : privateKeys,
    };
    const sent = { id: message.id, eventType: message.eventType, body: message.body };
    const span = startAttemptSpan(tracer(), delivery);
    const outcome = span
      ? await traceAttempt(span, options.transport, (transport) =>
          deliver(target, sent, { transport, timeoutMs }),
        )
      : await deliver(target, sent, { transport: options.transport, timeoutMs });
    const result = judgeAttempt(outcome, delivery.attempt, schedule, Date.now());
    metrics?.observeAttempt(result.label, outcome.latencyMs / 1000);
    await record(delivery, result);
    if (result.action.kind === "retry") {
      nextLocalDue = Math.min(nextLocalDue, result.action.at);
      wake?.abort(); // an idle wait started before this retry existed: recompute it
    }
    // Written in ATTEMPT_LINE_KEYS' order, whatever the order here; an undefined value is left out.
    attemptLine?.({
      messageId: message.id,
      deliveryId: delivery.id,
      subscriptionId: subscription.id,
      attempt: delivery.attempt,
      outcome: loggedOutcome(result),
      status: outcome.status ?? null,
      ms: outcome.latencyMs,
      // The error can quote what the endpoint sent (a redirect's Location): bounded like any outside value.
      error: outcome.error ? logText(outcome.error) : undefined,
    });
  }

  function launch(delivery: ClaimedDelivery): void {
    const run: Promise<void> = attempt(delivery).then(
      () => finished(delivery, run),
      (error: Error) => {
        // The store refused the outcome (e.g. the lease expired and another worker took it): nothing to undo.
        logger?.warn({ deliveryId: delivery.id, error: error.message }, "could not record the outcome");
        finished(delivery, run);
      },
    );
    running.add(run);
  }

  function finished(delivery: ClaimedDelivery, run: Promise<void>): void {
    running.delete(run);
    pool.done(delivery);
    // The freed slot goes first to a delivery already claimed for this (or another) subscription.
    if (!stopping.signal.aborted) for (const next of pool.take()) launch(next);
    // A claim that found nothing while skipping this subscription is worth retrying now that it has room.
    const sub = delivery.subscription.id;
    if (skippedWhenIdle?.has(sub) && pool.held(sub) < perSubscription) wake?.abort();
    slotFreed?.();
  }

  /** Hands back claimed deliveries that would lose their lease before they could finish. */
  async function releaseExpiring(): Promise<void> {
    for (const delivery of pool.drop(Date.now() + timeoutMs + 1000)) {
      await store.outbox.release(delivery).catch(() => {});
    }
  }

  /** The claimer: leases due deliveries in batches into the pool, and waits for room or for work. */
  async function loop(): Promise<void> {
    let lastSweep = 0;
    while (!stopping.signal.aborted) {
      try {
        if (Date.now() - lastSweep > sweepEveryMs) {
          lastSweep = Date.now();
          const disabled = await store.subscriptions.disableFailing(disableAfterMs);
          for (const id of disabled)
            logger?.warn({ subscriptionId: id }, "subscription disabled: failing too long");
        }
        for (const delivery of pool.take()) launch(delivery);
        if (pool.waiting > 0) await releaseExpiring();
        const room = pool.room;
        // Claim in batches: every claim is a transaction, so refilling one freed slot at a time would cost a
        // commit per delivery. Wait until a quarter of the slots are free (or nothing is in flight).
        if (room <= 0 || (pool.inFlight > 0 && room < Math.max(1, Math.floor(concurrency / 4)))) {
          await new Promise<void>((resolve) => {
            slotFreed = resolve;
            if (pool.waiting > 0) setTimeout(resolve, 1000).unref(); // leases of waiting deliveries
          });
          slotFreed = null;
          continue;
        }
        // Subscriptions at their cap are skipped, and each other one gets at most its cap: a slow subscriber's
        // backlog cannot fill the claim and hold the others back.
        const skip = pool.full();
        const claimed = await store.outbox.claim(Math.min(room, 128), {
          leaseMs,
          workerId,
          skipSubscriptions: skip,
          maxPerSubscription: perSubscription,
        });
        pool.add(claimed);
        for (const delivery of pool.take()) launch(delivery);
        if (claimed.length === 0) {
          // A skipped subscription may have got room while the claim ran (its completion saw no idle wait to end).
          if (skip.some((sub) => pool.held(sub) < perSubscription)) continue;
          const untilDue = nextLocalDue - Date.now();
          if (untilDue <= 0) nextLocalDue = Number.POSITIVE_INFINITY;
          skippedWhenIdle = skip.length > 0 ? new Set(skip) : null;
          wake = new AbortController();
          await store.outbox.waitForWork(
            AbortSignal.any([stopping.signal, wake.signal]),
            Math.max(5, Math.min(1000, untilDue)),
          );
          wake = null;
          skippedWhenIdle = null;
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        logger?.error({ error: (error as Error).message }, "worker loop: the store failed; retrying in 1 s");
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  const looping = loop();
  return {
    async stop() {
      stopping.abort();
      slotFreed?.();
      await looping;
      await Promise.all(running);
      // Claimed but never started: hand them back now rather than after their lease expires.
      for (const delivery of pool.drop()) await store.outbox.release(delivery).catch(() => {});
    },
  };
}
