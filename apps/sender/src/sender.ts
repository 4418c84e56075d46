import {
  DEFAULT_RETENTION_DAYS,
  openAppStore,
  type StoreSetting,
  startRetention,
  startWorker,
  type Worker,
} from "@plant-store/app-kit";
import { publicKeyOf, type Transport } from "@plant-store/core";
import type { Catalog } from "@plant-store/spec";
import type { Store } from "@plant-store/store";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { createAdminApi } from "./admin.js";
import { DEFAULT_CONCURRENCY } from "./config.js";
import { createMetrics, type SenderMetrics } from "./metrics.js";
import {
  createGuardedFetch,
  type GuardedFetch,
  parseAllowList,
  type Resolver,
  systemResolver,
} from "./ssrf.js";
import { senderTracer } from "./tracing.js";

/** Options of {@link createSender}. */
export interface SenderOptions {
  /** Admin API bearer tokens (clear or `sha256:<hex>`). Required. */
  adminTokens: readonly string[];
  /** An open store, or what `openStore` accepts. Default `:memory:`. */
  store?: StoreSetting;
  /** 32-byte key (base64 or hex) for tokens and secrets at rest, when the sender opens the store. */
  encryptionKey?: string;
  /** Older keys still read after a key rotation (the store refuses to open without every key in use). */
  previousEncryptionKeys?: readonly string[];
  /** CIDRs the SSRF guard lets through (e.g. `127.0.0.0/8` in development). */
  allowNetworks?: readonly string[];
  /** DNS resolver (tests). Default: the operating system's. */
  resolve?: Resolver;
  concurrency?: number;
  perSubscription?: number;
  timeoutMs?: number;
  schedule?: readonly number[];
  /** `whsk_` ed25519 private keys for subscriptions that sign `v1a` (several during a rotation). */
  privateKeys?: readonly string[];
  /** The webhooks it publishes: a catalog read from a document (`loadCatalog`); default `@plant-store/spec`'s. */
  catalog?: Catalog;
  /** Disable a subscription failing continuously this long. Default 5 days. */
  disableAfterMs?: number;
  /** Run the delivery worker in this process. Default true. */
  worker?: boolean;
  /** Where portal links point (`<consoleUrl>#token=…`); default the admin API's `/console/` at the requested host. */
  consoleUrl?: string;
  /** Admin API: time allowed to receive a request's headers. Default 10 s. */
  headersTimeoutMs?: number;
  /** Admin API: time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * How long messages with finished deliveries (and their attempts) are kept; older ones are purged hourly in
   * bounded batches, never one still pending or being retried. 0 keeps everything. Default 30 days.
   */
  retentionMs?: number;
  /** How long `close()` lets admin requests still arriving (a slow upload) finish before cutting them. Default 10 s. */
  drainTimeoutMs?: number;
  logger?: Logger;
}

/** A running sender: admin API + worker. */
export interface Sender {
  readonly store: Store;
  readonly admin: FastifyInstance;
  readonly metrics: SenderMetrics;
  /** Starts the admin API; resolves with its base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops the admin API and the worker (in-flight attempts finish), closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the sender: the admin API and the delivery worker over one store.
 *
 * @example
 * ```ts
 * const sender = await createSender({ adminTokens: ["psk_…"], store: "./data/sender.db", allowNetworks: ["127.0.0.0/8"] });
 * const url = await sender.listen(4001);
 * ```
 */
export async function createSender(options: SenderOptions): Promise<Sender> {
  const allow = parseAllowList(options.allowNetworks ?? []);
  const resolve = options.resolve ?? systemResolver;
  // A private key that cannot sign (bad base64, halves from two pairs) stops the start, not every delivery later.
  for (const key of options.privateKeys ?? []) await publicKeyOf(key);
  const keys = {
    // The sender decrypts every subscription's credentials: a missing key must stop the start, not every delivery.
    checkEncryptionKeys: true,
    ...(options.encryptionKey && { encryptionKey: options.encryptionKey }),
    ...(options.previousEncryptionKeys?.length && { previousEncryptionKeys: options.previousEncryptionKeys }),
  };
  const logger = options.logger;
  const { store, owned: owns } = await openAppStore(options.store, { logger, extra: keys });
  const metrics = createMetrics(store);
  // One Agent per (origin, address) may serve several subscriptions: it gets the worker's whole concurrency, so no
  // attempt ever waits inside it for a connection (the worker bounds what is in flight, per subscription too).
  const guard = createGuardedFetch({
    allow,
    resolve,
    connections: options.concurrency ?? DEFAULT_CONCURRENCY,
  });
  const admin = await createAdminApi({
    store,
    adminTokens: options.adminTokens,
    allow,
    resolve,
    metrics,
    canSignAsymmetric: (options.privateKeys?.length ?? 0) > 0,
    ...(options.catalog && { catalog: options.catalog }),
    ...(options.consoleUrl !== undefined && { consoleUrl: options.consoleUrl }),
    ...(options.logger && { logger: options.logger }),
    ...(options.headersTimeoutMs !== undefined && { headersTimeoutMs: options.headersTimeoutMs }),
    ...(options.requestTimeoutMs !== undefined && { requestTimeoutMs: options.requestTimeoutMs }),
  });
  const retention = startRetention({
    purge: (before) => store.purge({ before }),
    retentionMs: options.retentionMs ?? DEFAULT_RETENTION_DAYS * 86_400_000,
    ...(logger && { logger }),
  });
  const worker =
    options.worker === false ? null : startSenderWorker(options, store, guard.transport, metrics);
  let closing: Promise<void> | null = null;
  return {
    store,
    admin,
    metrics,
    async listen(port = 0, host = "127.0.0.1") {
      const address = await admin.listen({ port, host });
      return address.replace("[::1]", "127.0.0.1");
    },
    close() {
      closing ??= shutDown(
        { worker, admin, retention, guard, store: owns ? store : null },
        options.drainTimeoutMs,
      );
      return closing;
    },
  };
}

function startSenderWorker(
  options: SenderOptions,
  store: Store,
  transport: Transport,
  metrics: SenderMetrics,
): Worker {
  return startWorker({
    store,
    transport,
    metrics,
    tracer: senderTracer(),
    ...(options.logger && { logger: options.logger }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.perSubscription !== undefined && { perSubscription: options.perSubscription }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.schedule && { schedule: options.schedule }),
    ...(options.privateKeys && { privateKeys: options.privateKeys }),
    ...(options.disableAfterMs !== undefined && { disableAfterMs: options.disableAfterMs }),
  });
}

/** How long `close()` lets admin requests still arriving finish, unless configured. */
const DRAIN_TIMEOUT_MS = 10_000;

/** Stops what the sender runs; `store` is closed only when the sender opened it. */
async function shutDown(
  parts: {
    worker: Worker | null;
    admin: FastifyInstance;
    retention: { stop(): Promise<void> };
    guard: GuardedFetch;
    store: Store | null;
  },
  drainTimeoutMs = DRAIN_TIMEOUT_MS,
): Promise<void> {
  // The worker stops claiming at once, whatever the admin API is still waiting for; its in-flight attempts
  // finish meanwhile. An admin request still arriving gets drainTimeoutMs, then its connection is cut.
  const stopped = parts.worker?.stop();
  const cut = setTimeout(() => parts.admin.server.closeAllConnections(), drainTimeoutMs);
  try {
    await parts.admin.close();
  } finally {
    clearTimeout(cut);
  }
  await stopped;
  await parts.retention.stop();
  await parts.guard.close();
  await parts.store?.close();
}
