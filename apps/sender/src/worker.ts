import { logText } from "@plant-store/app-kit";
import { deliver, nextAttempt, STANDARD_SCHEDULE_MS, type Transport } from "@plant-store/core";
import {
  type ClaimedDelivery,
  type Store,
  StoreConflictError,
  StoreUnavailableError,
} from "@plant-store/store";
import type { Logger } from "pino";
import type { SenderMetrics } from "./metrics.js";

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
 * Claims due deliveries with a lease, sends each through core's `deliver` (exact bytes, bearer, Standard Webhooks
 * headers, no redirects) and applies the outcome: 2xx completes; 410 fails the delivery and disables the
 * subscription; other failures retry on the schedule (with jitter, honouring a clamped Retry-After) until it is
 * exhausted, then fail (kept for resend); a refused address fails at once. Subscriptions failing for
 * `disableAfterMs` are disabled. Wakes on new work (LISTEN/NOTIFY on PostgreSQL) with polling as a fallback.
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
  const inFlight = new Set<Promise<void>>();
  const perSub = new Map<string, number>();
  const stopping = new AbortController();
  let slotFreed: (() => void) | null = null;
  // The earliest retry this worker scheduled: the idle wait ends then, so short retry delays are kept
  // (new work wakes the loop at once through waitForWork; the 1 s poll covers other workers' retries).
  let nextLocalDue = Number.POSITIVE_INFINITY;
  let wake: AbortController | null = null;

  /**
   * Records an attempt's outcome, retrying while the store is briefly unavailable (a dropped connection, a lock)
   * and the lease still holds: a lost outcome means the delivery is sent again once its lease expires, and its
   * attempt is missing from the history.
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

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const { subscription, message } = delivery;
    const outcome = await deliver(
      {
        url: subscription.url,
        token: subscription.token,
        secrets: subscription.signing === "asymmetric" ? [] : subscription.secrets,
        privateKeys: subscription.signing === "symmetric" ? [] : privateKeys,
      },
      { id: message.id, eventType: message.eventType, body: message.body },
      { transport: options.transport, timeoutMs },
    );
    const blocked = outcome.kind === "failed" && /SSRF guard/.test(outcome.error ?? "");
    const label = blocked ? "blocked" : outcome.kind;
    metrics?.observeAttempt(label, outcome.latencyMs / 1000);
    const record = {
      status: outcome.status ?? null,
      latencyMs: outcome.latencyMs,
      responseBody: outcome.responseBody ?? null,
      error: outcome.error ?? null,
    };
    const lease = { id: delivery.id, leaseToken: delivery.leaseToken };
    // What the log line says happened to the delivery: a last attempt that is not retried failed it for good.
    let logged: string = label;
    if (outcome.kind === "delivered") {
      await persist(delivery, () => store.outbox.complete(lease, { attempt: record }));
    } else if (outcome.kind === "gone") {
      await persist(delivery, () =>
        store.outbox.fail(lease, { attempt: record, reason: "The endpoint answered 410 Gone." }),
      );
      await persist(delivery, () =>
        store.subscriptions.disable(subscription.id, "The endpoint answered 410 Gone."),
      );
      logger?.warn({ subscriptionId: subscription.id }, "subscription disabled: 410 Gone");
    } else {
      const next = nextAttempt(delivery.attempt, outcome, { schedule });
      if (next.retry) {
        const due = Date.now() + next.delayMs;
        nextLocalDue = Math.min(nextLocalDue, due);
        await persist(delivery, () => store.outbox.reschedule(lease, due, { attempt: record }));
        wake?.abort(); // an idle wait started before this retry existed: recompute it
      } else {
        if (label === "retry") logged = "failed";
        await persist(delivery, () =>
          store.outbox.fail(lease, {
            attempt: record,
            reason: outcome.error ?? `status ${outcome.status}`,
          }),
        );
      }
    }
    logger?.info(
      {
        messageId: message.id,
        deliveryId: delivery.id,
        subscriptionId: subscription.id,
        attempt: delivery.attempt,
        outcome: logged,
        status: outcome.status ?? null,
        ms: outcome.latencyMs,
        // The error can quote what the endpoint sent (a redirect's Location): bounded like any outside value.
        ...(outcome.error && { error: logText(outcome.error) }),
      },
      "attempt",
    );
  }

  function launch(delivery: ClaimedDelivery): void {
    const sub = delivery.subscription.id;
    perSub.set(sub, (perSub.get(sub) ?? 0) + 1);
    const run = attempt(delivery)
      .catch((error: Error) => {
        // The store refused the outcome (e.g. the lease expired and another worker took it): nothing to undo.
        logger?.warn({ deliveryId: delivery.id, error: error.message }, "could not record the outcome");
      })
      .finally(() => {
        inFlight.delete(run);
        const left = (perSub.get(sub) ?? 1) - 1;
        if (left === 0) perSub.delete(sub);
        else perSub.set(sub, left);
        // The freed slot goes first to a delivery already claimed for this (or another) subscription.
        if (!stopping.signal.aborted) for (const next of takeStartable()) launch(next);
        // A claim that found nothing while skipping this subscription is worth retrying now that it has room.
        if (skippedWhenIdle?.has(sub) && held(sub) < perSubscription) wake?.abort();
        slotFreed?.();
      });
    inFlight.add(run);
  }

  // Claimed deliveries whose subscription was at its cap when they arrived: they stay leased to this worker and
  // start as that subscription's slots free (a claim takes at most `perSubscription` per subscription, so this
  // holds at most that many per subscription). One whose lease would run out before it could finish is released.
  const waiting: ClaimedDelivery[] = [];
  const held = (sub: string) =>
    (perSub.get(sub) ?? 0) + waiting.reduce((n, d) => n + (d.subscription.id === sub ? 1 : 0), 0);
  function takeStartable(): ClaimedDelivery[] {
    const ready: ClaimedDelivery[] = [];
    let room = concurrency - inFlight.size;
    for (let i = 0; i < waiting.length && room > 0; ) {
      const delivery = waiting[i] as ClaimedDelivery;
      const sub = delivery.subscription.id;
      const pending = ready.filter((d) => d.subscription.id === sub).length;
      if ((perSub.get(sub) ?? 0) + pending < perSubscription) {
        ready.push(delivery);
        waiting.splice(i, 1);
        room--;
      } else i++;
    }
    return ready;
  }
  /** Subscriptions this worker cannot take more of now: a claim skips them, so their backlog does not fill it. */
  function fullSubscriptions(): string[] {
    const counts = new Map(perSub);
    for (const d of waiting) counts.set(d.subscription.id, (counts.get(d.subscription.id) ?? 0) + 1);
    return [...counts].filter(([, n]) => n >= perSubscription).map(([sub]) => sub);
  }
  async function releaseExpiring(): Promise<void> {
    const deadline = Date.now() + timeoutMs + 1000;
    for (let i = waiting.length - 1; i >= 0; i--) {
      const delivery = waiting[i] as ClaimedDelivery;
      if (delivery.leaseExpiresAt.getTime() < deadline) {
        waiting.splice(i, 1);
        await store.outbox.release(delivery).catch(() => {});
      }
    }
  }
  // The subscriptions skipped by the last claim, when it found nothing: one of them getting room ends the idle wait.
  let skippedWhenIdle: Set<string> | null = null;

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
        for (const delivery of takeStartable()) launch(delivery);
        if (waiting.length > 0) await releaseExpiring();
        const room = concurrency - inFlight.size - waiting.length;
        // Claim in batches: every claim is a transaction, so refilling one freed slot at a time would cost a
        // commit per delivery. Wait until a quarter of the slots are free (or nothing is in flight).
        if (room <= 0 || (inFlight.size > 0 && room < Math.max(1, Math.floor(concurrency / 4)))) {
          await new Promise<void>((resolve) => {
            slotFreed = resolve;
            if (waiting.length > 0) setTimeout(resolve, 1000).unref(); // leases of waiting deliveries
          });
          slotFreed = null;
          continue;
        }
        // Subscriptions at their cap are skipped, and each other one gets at most its cap: a slow subscriber's
        // backlog cannot fill the claim and hold the others back.
        const skip = fullSubscriptions();
        const claimed = await store.outbox.claim(Math.min(room, 128), {
          leaseMs,
          workerId,
          skipSubscriptions: skip,
          maxPerSubscription: perSubscription,
        });
        waiting.push(...claimed);
        for (const delivery of takeStartable()) launch(delivery);
        if (claimed.length === 0) {
          // A skipped subscription may have got room while the claim ran (its completion saw no idle wait to end).
          if (skip.some((sub) => held(sub) < perSubscription)) continue;
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

  const running = loop();
  return {
    async stop() {
      stopping.abort();
      slotFreed?.();
      await running;
      await Promise.all(inFlight);
      // Claimed but never started: hand them back now rather than after their lease expires.
      for (const delivery of waiting.splice(0)) await store.outbox.release(delivery).catch(() => {});
    },
  };
}
