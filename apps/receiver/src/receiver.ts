import type { IncomingMessage, Server, ServerResponse } from "node:http";
import {
  createNodeServer,
  DEFAULT_RETENTION_DAYS,
  logText,
  openAppStore,
  type StoreSetting,
  startRetention,
} from "@plant-store/app-kit";
import { createConsoleServer } from "@plant-store/console";
import { createWebhookHandler, type Logger as PipelineLogger, type SigningScheme } from "@plant-store/core";
import { answerExpectContinue, requestPath } from "@plant-store/core/node";
import type { Catalog } from "@plant-store/spec";
import type { Store } from "@plant-store/store";
import type { Logger } from "pino";
import { createAccessLine } from "./access-line.js";
import { createAdminApi } from "./admin.js";
import { type Forwarding, type ForwardingOptions, startForwarding } from "./forwarding.js";
import { drain, listen } from "./lifecycle.js";
import { createMetrics, type ReceiverMetrics } from "./metrics.js";
import { type OpsRoutes, serveOps } from "./ops-routes.js";
import { createRecordEvent } from "./record-event.js";
import { receiverTracer } from "./tracing.js";
import { serveWebhook, type WebhookRoute } from "./webhook-route.js";

/** Options of {@link createReceiver}. */
export interface ReceiverOptions {
  /** Accepted bearer tokens (clear or `sha256:<hex>`). Required. */
  tokens: readonly string[];
  /** The webhooks served: a catalog read from a document (`loadCatalog`); default `@plant-store/spec`'s. */
  catalog?: Catalog;
  /** Event types of the catalog to accept; default every one. */
  events?: readonly string[];
  /** `whsec_` secrets; when given, valid Standard Webhooks signatures are required. */
  secrets?: readonly string[];
  /** `whpk_` ed25519 public keys; when given, valid signatures are required and `v1a` ones are accepted. */
  publicKeys?: readonly string[];
  /** An open store, or what `openStore` accepts (SQLite path, `:memory:`, `postgres://…`). Default `:memory:`. */
  store?: StoreSetting;
  /** Tokens (or hashes) for `GET /events` and `/events/stream`; without any, those endpoints are off. */
  adminTokens?: readonly string[];
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /**
   * @deprecated Every int64 id is accepted now (the contract's range; the store keeps the bytes as received), so
   * this has no effect. It used to be needed for ids beyond 2^53, which were refused with 422 without it.
   */
  lossless?: boolean;
  /** The payload bytes a `GET /events` page holds at most (at least one event). Default 4 MiB. */
  eventsPageMaxBytes?: number;
  /**
   * How long stored data is kept (inbox events; messages and finished deliveries when the store is shared with a
   * sender); older data is purged hourly in bounded batches. 0 keeps everything. Default 30 days.
   */
  retentionMs?: number;
  /** A pino logger (one line per request); omitted → no logs. */
  logger?: Logger;
  /** Time allowed to receive a request's headers (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number;
  /** Idle time a keep-alive connection stays open. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** How long `close()` waits for in-flight requests before cutting connections. Default 10 s. */
  drainTimeoutMs?: number;
  /** Clock for the timestamp check, in ms. */
  now?: () => number;
  /** Hand every accepted event on to these URLs (destinations named after them, created or updated at start). */
  forwardTo?: readonly string[];
  /** The `forwardTo` destinations' `whsec_` signing secret; default a generated one, kept in the store. */
  forwardSecret?: string;
  /** How the `forwardTo` destinations sign (`symmetric` v1, `asymmetric` v1a, `both`); default: as stored (new: v1). */
  forwardSigning?: SigningScheme;
  /** `whsk_` ed25519 private keys for destinations that sign v1a; without, none may. */
  forwardPrivateKeys?: readonly string[];
  /** Forward retry schedule in ms; default the Standard Webhooks schedule. */
  schedule?: readonly number[];
  /** Private networks (CIDR) destinations may be in; cloud metadata and link-local never. */
  allowNetworks?: readonly string[];
  /** Run the forwarding worker in this process. Default true. */
  forward?: boolean;
}

/** A running (or ready to run) receiver. */
export interface Receiver {
  readonly server: Server;
  readonly store: Store;
  readonly metrics: ReceiverMetrics;
  /** The webhooks served (type, path, …). */
  readonly events: Catalog;
  /** Starts listening; resolves with the base URL (`http://host:port`). Port 0 picks a free port. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, finishes in-flight requests, ends event streams, flushes and closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the receiver: every webhook of the catalog (`POST /plant/webhook`, …) through core's pipeline with the store's inbox as the
 * dedup + commit step (200 only after the commit that holds the event), plus `/healthz`, `/readyz`,
 * `/metrics` and the admin endpoints `/events` and `/events/stream`.
 *
 * @example
 * ```ts
 * const receiver = await createReceiver({ tokens: ["psk_…"], secrets: ["whsec_…"], store: "./data/receiver.db" });
 * const url = await receiver.listen(4000, "127.0.0.1");
 * process.once("SIGTERM", () => receiver.close());
 * ```
 */
export async function createReceiver(options: ReceiverOptions): Promise<Receiver> {
  const { store, owned: ownsStore } = await openAppStore(options.store, { logger: options.logger });
  const metrics = createMetrics(
    () => store.inbox.count(),
    () => store.destinations.stats(),
  );
  let forwarding: Forwarding | null = null;
  try {
    forwarding =
      options.forward === false ? null : await startForwarding(forwardingOptions(options, store, metrics));
  } catch (error) {
    if (ownsStore) await store.close();
    throw error;
  }
  const webhook = webhookRoute(options, store, metrics);
  const ops = opsRoutes(options, store, metrics, webhook);
  const server = receiverServer(options, webhook, ops);
  const retention = startRetention({
    purge: (before) => store.purge({ before }),
    retentionMs: options.retentionMs ?? DEFAULT_RETENTION_DAYS * 86_400_000,
    ...(options.logger && { logger: options.logger }),
  });
  let closing: Promise<void> | null = null;
  return {
    server,
    store,
    metrics,
    events: webhook.handler.events,
    listen: (port = 0, host = "127.0.0.1") => listen(server, port, host),
    close() {
      closing ??= (async () => {
        ops.admin.close(); // ends live event streams, so their connections can drain
        await drain(server, options.drainTimeoutMs ?? 10_000);
        await forwarding?.stop();
        await retention.stop();
        if (ownsStore) await store.close(); // flushes the group commit
      })();
      return closing;
    },
  };
}

/** The forwarding worker's options from the receiver's. */
function forwardingOptions(
  options: ReceiverOptions,
  store: Store,
  metrics: ReceiverMetrics,
): ForwardingOptions {
  return {
    store,
    forwardTo: options.forwardTo,
    forwardSecret: options.forwardSecret,
    forwardSigning: options.forwardSigning,
    privateKeys: options.forwardPrivateKeys,
    schedule: options.schedule,
    allowNetworks: options.allowNetworks,
    metrics: metrics.forwards,
    logger: options.logger,
  };
}

/** Core's pipeline over the store's inbox, in lossless mode, with what serving a webhook request needs. */
function webhookRoute(options: ReceiverOptions, store: Store, metrics: ReceiverMetrics): WebhookRoute {
  const tracer = receiverTracer();
  const logger = options.logger && pipelineLogger(options.logger);
  // Lossless: the contract's id is int64 and the inbox keeps the bytes as sent, so no id is refused for being beyond
  // 2^53 (a sender would retry it until it gave up); nothing here reads the id as a JavaScript number.
  const handler = createWebhookHandler({
    tokens: options.tokens,
    secrets: options.secrets ?? [],
    publicKeys: options.publicKeys ?? [],
    maxBodyBytes: options.maxBodyBytes,
    toleranceSeconds: options.toleranceSeconds,
    now: options.now,
    logger,
    catalog: options.catalog,
    events: options.events,
    mode: "lossless",
    onEvent: createRecordEvent(store, tracer),
  });
  return { handler, metrics, tracer, accessLine: options.logger && createAccessLine(options.logger) };
}

function opsRoutes(
  options: ReceiverOptions,
  store: Store,
  metrics: ReceiverMetrics,
  webhook: WebhookRoute,
): OpsRoutes {
  const admin = createAdminApi({
    store,
    adminTokens: options.adminTokens ?? [],
    eventTypes: webhook.handler.events,
    canSignAsymmetric: (options.forwardPrivateKeys?.length ?? 0) > 0,
    ...(options.eventsPageMaxBytes !== undefined && { pageMaxBytes: options.eventsPageMaxBytes }),
  });
  const served = webhook.handler.events.map((entry) => `${entry.method} ${entry.path}`).join(", ");
  const consoleServer = createConsoleServer({ app: "receiver" });
  return { store, metrics, admin, consoleServer, logger: options.logger, served };
}

/**
 * The receiver's `http.Server`: webhook paths go through the pipeline, the rest to the ops routes. Every answer
 * node:http would write itself is `{ error, message }` like everything else (app-kit's `createNodeServer`).
 */
function receiverServer(options: ReceiverOptions, webhook: WebhookRoute, ops: OpsRoutes): Server {
  const webhookPaths = new Set(webhook.handler.events.map((entry) => entry.path));
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req.url);
    if (webhookPaths.has(path)) void serveWebhook(webhook, path, req, res);
    else void serveOps(ops, path, req, res);
  };
  return createNodeServer(serve, {
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs,
    // `Expect: 100-continue`: a request refused on its headers alone is answered before its body is invited.
    expectContinue: (req, res) => {
      if (webhookPaths.has(requestPath(req.url))) return answerExpectContinue(webhook.handler, req, res);
      res.writeContinue();
      return true;
    },
  });
}

/** Pipeline log lines through pino, with every string detail bounded. */
function pipelineLogger(logger: Logger): PipelineLogger {
  return {
    warn: (message, details) => logger.warn(bounded(details), message),
    error: (message, details) => logger.error(bounded(details), message),
  };
}

/** Pipeline log details (a webhook id, an error) with every string bounded: they may come from the request. */
function bounded(details: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!details) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details))
    out[key] = typeof value === "string" ? logText(value) : value;
  return out;
}
