import type { Tracer } from "@opentelemetry/api";
import { DEFAULT_TIMEOUT_MS, STANDARD_SCHEDULE_MS, type Transport } from "@plant-store/core";
import type { ClaimedDelivery, Store, TargetScope } from "@plant-store/store";
import type { Logger } from "pino";
import { createLineWriter } from "../line-writer.js";
import { packageTracer } from "../tracing.js";

/** The tracer of a worker whose app gives none. */
const workerTracer = () => packageTracer(new URL("../../package.json", import.meta.url));

import { SlotPool } from "./slot-pool.js";

/** What a worker reports to the app's metrics: each attempt's outcome label and latency. */
export interface WorkerMetrics {
  /** `delivery` says whose attempt it was (per-target metrics, the received→accepted latency). */
  observeAttempt(outcome: string, seconds: number, delivery: ClaimedDelivery): void;
}

/** Deliveries in flight in all, by default (the sender's `--concurrency`). */
export const DEFAULT_CONCURRENCY = 64;

/** Options of `startWorker`. */
export interface WorkerOptions {
  store: Store;
  /**
   * Whose deliveries it claims: the sender's subscriptions (default) or the receiver's destinations. A receiver's
   * worker does not sweep failing subscriptions (they are the sender's).
   */
  scope?: TargetScope;
  /** How attempts are sent: the SSRF guard's (`createGuardedFetch(...).transport`). Required, so no worker sends unguarded. */
  transport: Transport;
  metrics?: WorkerMetrics;
  /** The app's tracer (`appTracer`); default app-kit's own, live once an OpenTelemetry SDK is registered. */
  tracer?: () => Tracer | undefined;
  logger?: Logger;
  /** Deliveries in flight in all. Default 64. */
  concurrency?: number;
  /** Deliveries in flight per subscription. Default 16. */
  perSubscription?: number;
  /** Per attempt. Default core's `DEFAULT_TIMEOUT_MS` (15 s). */
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

const DAY = 24 * 60 * 60 * 1000;

/** What every stage of one worker shares: its settings, its slot pool, and the state the claimer waits on. */
export interface WorkerContext {
  store: Store;
  scope: TargetScope;
  transport: Transport;
  metrics: WorkerMetrics | undefined;
  logger: Logger | undefined;
  concurrency: number;
  perSubscription: number;
  timeoutMs: number;
  schedule: readonly number[];
  privateKeys: readonly string[];
  leaseMs: number;
  workerId: string;
  disableAfterMs: number;
  /** How often failing subscriptions are checked: every minute, or sooner when the limit itself is short (tests). */
  sweepEveryMs: number;
  pool: SlotPool;
  /** The line `logger.info(fields, "attempt")` writes, without pino's per-key lookups (app-kit's createLineWriter). */
  attemptLine: ReturnType<typeof createLineWriter<(typeof ATTEMPT_LINE_KEYS)[number]>> | undefined;
  tracer: () => Tracer | undefined;
  running: Set<Promise<void>>;
  /**
   * Attempts answered whose outcome is not yet committed (their slots already freed): the claimer takes no more
   * while there are `concurrency` of them, so a slow store holds the worker back instead of piling outcomes up.
   */
  recording: number;
  stopping: AbortController;
  /** Ends the claimer's wait for room. */
  slotFreed: (() => void) | null;
  /**
   * The earliest retry this worker scheduled: the idle wait ends then, so short retry delays are kept (new work
   * wakes the loop at once through waitForWork; the 1 s poll covers other workers' retries).
   */
  nextLocalDue: number;
  /** Ends the claimer's idle wait. */
  wake: AbortController | null;
  /** The subscriptions skipped by the last claim, when it found nothing: one of them getting room ends the idle wait. */
  skippedWhenIdle: Set<string> | null;
  /** Per ordered target, the delivery id of the retrying head it logged "blocked behind" for (once per head). */
  blockedHeads: Map<string, number>;
}

/**
 * A worker's context from its options, defaults filled in.
 *
 * @example
 * ```ts
 * const ctx = workerContext({ store, transport: guard.transport });
 * ```
 */
export function workerContext(options: WorkerOptions): WorkerContext {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const disableAfterMs = options.disableAfterMs ?? 5 * DAY;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perSubscription = options.perSubscription ?? 16;
  const logger = options.logger;
  return {
    store: options.store,
    scope: options.scope ?? "sender",
    transport: options.transport,
    metrics: options.metrics,
    logger,
    concurrency,
    perSubscription,
    timeoutMs,
    schedule: options.schedule ?? STANDARD_SCHEDULE_MS,
    privateKeys: options.privateKeys ?? [],
    leaseMs: options.leaseMs ?? timeoutMs + 5_000,
    workerId: options.workerId ?? `sender-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    disableAfterMs,
    sweepEveryMs: Math.min(60_000, Math.max(50, disableAfterMs / 4)),
    pool: new SlotPool(concurrency, perSubscription),
    attemptLine: logger && createLineWriter(logger, "info", "attempt", ATTEMPT_LINE_KEYS),
    tracer: options.tracer ?? workerTracer(),
    running: new Set(),
    recording: 0,
    stopping: new AbortController(),
    slotFreed: null,
    nextLocalDue: Number.POSITIVE_INFINITY,
    wake: null,
    skippedWhenIdle: null,
    blockedHeads: new Map(),
  };
}

/** Hands back claimed deliveries unattempted (shutdown, or a lease that would expire before they could start). */
export async function releaseAll(ctx: WorkerContext, deliveries: readonly ClaimedDelivery[]): Promise<void> {
  for (const delivery of deliveries) await ctx.store.outbox.release(delivery).catch(() => {});
}
