import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { context } from "@opentelemetry/api";
import {
  DEFAULT_RETENTION_DAYS,
  logText,
  openAppStore,
  readiness,
  type StoreSetting,
  startRetention,
} from "@plant-store/app-kit";
import { createConsoleServer } from "@plant-store/console";
import {
  createMessageId,
  createWebhookHandler,
  errorResponse,
  type ReceivedEvent,
  type WebhookHandler,
  type WebhookResponse,
} from "@plant-store/core";
import {
  answerExpectContinue,
  createNodeServer,
  handleNodeRequest,
  requestPath,
  send,
} from "@plant-store/core/node";
import { type Catalog, EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";
import type { Store } from "@plant-store/store";
import type { Logger } from "pino";
import { createAccessLine } from "./access-line.js";
import { type AdminApi, createAdminApi } from "./admin.js";
import { jsonResponse } from "./http.js";
import { createMetrics, type ReceiverMetrics } from "./metrics.js";
import { endServerSpan, receiverTracer, startServerSpan, traceCommit } from "./tracing.js";

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
  const logger = options.logger;
  const metrics = createMetrics(() => store.inbox.count());
  const tracer = receiverTracer();
  // The store's result says `duplicate` itself: handed to the pipeline as it comes, without another async frame.
  const record = (event: ReceivedEvent) => {
    // Without a webhook-id (only possible when no secret is configured) nothing can be deduplicated:
    // the event is stored under an id of our own, `rcv_…`, sortable like the sender's message ids.
    const webhookId = event.id ?? `rcv_${createMessageId().slice(4)}`;
    const input = { webhookId, eventType: event.type, body: event.body, headers: event.headers };
    const traced = tracer();
    return traced
      ? traceCommit(traced, { id: webhookId, type: event.type, size: event.body.byteLength }, () =>
          store.inbox.record(input),
        )
      : store.inbox.record(input);
  };
  const pipelineLogger = logger && {
    warn: (message: string, details?: Record<string, unknown>) => logger.warn(bounded(details), message),
    error: (message: string, details?: Record<string, unknown>) => logger.error(bounded(details), message),
  };
  const common = {
    tokens: options.tokens,
    secrets: options.secrets ?? [],
    publicKeys: options.publicKeys ?? [],
    ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }),
    ...(options.toleranceSeconds !== undefined && { toleranceSeconds: options.toleranceSeconds }),
    ...(options.now && { now: options.now }),
    ...(pipelineLogger && { logger: pipelineLogger }),
    ...(options.catalog && { catalog: options.catalog }),
    ...(options.events && { events: options.events }),
  };
  // Lossless: the contract's id is int64 and the inbox keeps the bytes as sent, so no id is refused for being beyond
  // 2^53 (a sender would retry it until it gave up); nothing here reads the id as a JavaScript number.
  const handler: WebhookHandler = createWebhookHandler({ ...common, mode: "lossless", onEvent: record });
  const retention = startRetention({
    purge: (before) => store.purge({ before }),
    retentionMs: options.retentionMs ?? DEFAULT_RETENTION_DAYS * 86_400_000,
    ...(logger && { logger }),
  });
  const admin: AdminApi = createAdminApi({
    store,
    adminTokens: options.adminTokens ?? [],
    eventTypes: handler.events,
    ...(options.eventsPageMaxBytes !== undefined && { pageMaxBytes: options.eventsPageMaxBytes }),
  });
  const webhookPaths = new Set(handler.events.map((entry) => entry.path));
  const served = handler.events.map((entry) => `${entry.method} ${entry.path}`).join(", ");
  const consoleServer = createConsoleServer({ app: "receiver" });

  const accessLine = logger && createAccessLine(logger);

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req.url);
    if (webhookPaths.has(path)) {
      void webhook(path, req, res);
      return;
    }
    void ops(path, req, res);
  };
  // Every answer node:http would write itself (unparsable requests, timeouts, a missing or repeated Host, an odd
  // Expect, CONNECT) is `{ error, message }` like everything else; timeouts are checked every second.
  const server = createNodeServer(serve, {
    headersTimeoutMs: headersTimeout,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 5_000,
    // `Expect: 100-continue`: a request refused on its headers alone is answered before its body is invited.
    expectContinue: (req, res) => {
      if (webhookPaths.has(requestPath(req.url))) return answerExpectContinue(handler, req, res);
      res.writeContinue();
      return true;
    },
  });

  async function webhook(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const traced = tracer();
    let response: WebhookResponse | null;
    if (traced) {
      // The pipeline runs in the request span's context: the commit's span (`record`) is its child.
      const server = startServerSpan(traced, req, path);
      response = await context.with(server.context, handleNodeRequest, undefined, handler, req, res);
      endServerSpan(server.span, response);
    } else response = await handleNodeRequest(handler, req, res);
    if (!response) return; // the client went away before sending the whole body
    const seconds = (performance.now() - started) / 1000;
    metrics.observeRequest(response.status, seconds);
    const { outcome } = response;
    if (outcome.kind === "duplicate") metrics.duplicates.inc();
    accessLine?.({
      // Both come from the request: a line takes a bounded part of them, whatever the client sent.
      webhookId: logText(req.headers[WEBHOOK_HEADERS.id]),
      eventType: logText(req.headers[EVENT_TYPE_HEADER]),
      status: response.status,
      outcome: outcome.kind,
      reason: outcome.kind === "rejected" ? logText(outcome.reason) : undefined,
      ms: Math.round(seconds * 10_000) / 10,
    });
  }

  async function ops(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const method = req.method ?? "GET";
      if (consoleServer.serves(path)) {
        if (!req.complete) req.resume();
        const { status, headers, body } = consoleServer.respond(method, path);
        res.writeHead(status, headers);
        res.end(method === "HEAD" ? undefined : body);
        return;
      }
      const known = path === "/healthz" || path === "/readyz" || path === "/metrics" || admin.serves(path);
      if (!known) {
        return send(res, errorResponse(404, `Nothing is served at ${path}. Webhooks go to ${served}.`));
      }
      if (method !== "GET" && method !== "HEAD") {
        return send(
          res,
          errorResponse(405, `${method} is not allowed on ${path}; use GET.`, { allow: "GET, HEAD" }),
        );
      }
      if (!req.complete) req.resume();
      if (path === "/healthz") return send(res, jsonResponse(200, { status: "ok" }));
      if (path === "/readyz") {
        const ready = await readiness(store, { app: "receiver", logger });
        return send(res, jsonResponse(ready.status, ready.body));
      }
      if (path === "/metrics") {
        const text = await metrics.registry.metrics();
        return send(res, {
          status: 200,
          headers: { "content-type": metrics.registry.contentType },
          body: text,
        });
      }
      await admin.handle(path, req, res);
    } catch (error) {
      logger?.error({ path: logText(path), error: (error as Error).message }, "request failed");
      send(res, errorResponse(503, "The request could not be served right now. Retry later."));
    }
  }

  let closing: Promise<void> | null = null;
  return {
    server,
    store,
    metrics,
    events: handler.events,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      });
    },
    close() {
      closing ??= (async () => {
        admin.close(); // ends live event streams, so their connections can drain
        const drained = new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
        });
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
        await drained;
        clearTimeout(timer);
        await retention.stop();
        if (ownsStore) await store.close(); // flushes the group commit
      })();
      return closing;
    },
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
