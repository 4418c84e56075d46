import { adminRoutes } from "@plant-store/admin-api";
import { createNodeServer, logText, readiness } from "@plant-store/app-kit";
import { createConsoleServer } from "@plant-store/console";
import {
  createBearerCheck,
  createSecret,
  createToken,
  createTokenVerifier,
  DEFAULT_DISABLE_REASON,
  parseDateTime,
  type SigningScheme,
} from "@plant-store/core";
import { nodeHeaders } from "@plant-store/core/node";
import {
  type Catalog,
  DEFAULT_EVENT_TYPE,
  catalog as specCatalog,
  unknownEventMessage,
} from "@plant-store/spec";
import {
  type Delivery,
  InvalidEventError,
  type Store,
  StoreConflictError,
  StoreError,
  StoreInputError,
  type Subscription,
} from "@plant-store/store";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { SenderMetrics } from "./metrics.js";
import { adminOpenApi } from "./openapi.js";
import { ApiError, registerRoutes } from "./route-table.js";
import { type AllowList, type Resolver, resolveTarget } from "./ssrf.js";
import { senderTracer, tracePublish } from "./tracing.js";

/** Options of {@link createAdminApi}. */
export interface AdminApiOptions {
  store: Store;
  adminTokens: readonly string[];
  allow: AllowList;
  resolve: Resolver;
  metrics: SenderMetrics;
  logger?: Logger;
  /** Whether the sender holds ed25519 private keys (`--private-key`): without, no subscription may sign v1a. */
  canSignAsymmetric?: boolean;
  /** The webhooks it publishes (a catalog read from `--spec`); default `@plant-store/spec`'s. */
  catalog?: Catalog;
  /** Body cap of admin requests. Default 64 KiB. */
  bodyLimit?: number;
  /** Time allowed to receive a request's headers (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number;
}

const decoder = new TextDecoder();
/** Request bodies: invalid UTF-8 is refused rather than relayed with U+FFFD; a leading BOM is dropped. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
/** The paths served without an admin token (health, readiness, metrics, this document), from the route table. */
const PUBLIC_PATHS = new Set<string>(
  Object.values(adminRoutes)
    .filter((route) => "auth" in route && route.auth === false)
    .map((route) => route.path),
);

/**
 * The admin API (Fastify): subscriptions, publishing, messages, deliveries and their attempts, resend and
 * recover, plus `/healthz`, `/readyz`, `/metrics` and `/openapi.json`. Everything but those four needs an admin
 * bearer token; every error is `{ error, message }`, Fastify's own (bad JSON, body too large, 404) included.
 *
 * @example
 * ```ts
 * const app = await createAdminApi({ store, adminTokens, allow, resolve: systemResolver, metrics });
 * await app.listen({ port: 4001, host: "127.0.0.1" });
 * ```
 */
export async function createAdminApi(options: AdminApiOptions): Promise<FastifyInstance> {
  const { store, allow, resolve, metrics } = options;
  const catalog = options.catalog ?? specCatalog;
  const tracer = senderTracer();
  const isKnownType = (type: string) => catalog.some((entry) => entry.type === type);
  /** Event types a subscription names must be webhooks of the catalog: a typo would silently receive nothing. */
  function knownTypes(types: readonly string[] | null | undefined): readonly string[] | null | undefined {
    const unknown = types?.find((type) => !isKnownType(type));
    if (unknown !== undefined)
      throw new ApiError(400, `eventTypes: ${unknownEventMessage(catalog, unknown)}`);
    return types;
  }
  function signingScheme(signing: SigningScheme | undefined): SigningScheme | undefined {
    if (signing !== undefined && signing !== "symmetric" && !options.canSignAsymmetric) {
      throw new ApiError(
        400,
        `signing "${signing}" needs the sender's ed25519 private key: start it with --private-key whsk_… (create one with \`plant-store keypair create\`).`,
      );
    }
    return signing;
  }
  const checkBearer = createBearerCheck({
    verifier: createTokenVerifier(options.adminTokens),
    realm: "plant-store-sender",
    missing: "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
    rejected: "The admin token is not accepted.",
  });
  const consoleServer = createConsoleServer({ app: "sender" });
  const timeouts = {
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  };
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    // The receiver's server: slow headers and bodies are cut at these times (checked every second, not every 30 s),
    // and what node:http answers itself (no Host, two, an odd Expect, CONNECT, unparsable HTTP) is JSON too.
    serverFactory: (handler) => createNodeServer(handler, timeouts),
    requestTimeout: timeouts.requestTimeoutMs,
    // What Fastify and node:http refuse before a route runs answers in the contract's shape too, not Fastify's
    // `{ statusCode, code, error: "Bad Request" }`: a malformed URL, an over-long path segment, unparsable HTTP.
    frameworkErrors: (error, _request, reply) =>
      error.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? sendError(reply, 414, "A path segment is longer than 100 characters; no id is that long.")
        : error.code === "FST_ERR_BAD_URL"
          ? sendError(reply, 400, "The URL is not valid: a malformed percent-encoding in the path.")
          : sendError(reply, 400, "The request could not be routed."),
    // createNodeServer answers these already; Fastify's default would write a second answer.
    clientErrorHandler: () => {},
  });

  // Raw JSON text: `POST /events` must keep the exact bytes (int64 ids are never rounded through JSON.parse).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    try {
      done(null, strictUtf8.decode(body as Buffer));
    } catch {
      done(new ApiError(400, "The body is not valid UTF-8; JSON must be sent as UTF-8 (RFC 8259 §8.1)."));
    }
  });
  app.addContentTypeParser("*", { parseAs: "string" }, (request, _body, done) =>
    done(
      new ApiError(
        415,
        request.headers["content-type"]
          ? `Content type '${request.headers["content-type"].slice(0, 100)}' is not accepted; send 'Content-Type: application/json'.`
          : "The request has a body but no Content-Type; send 'Content-Type: application/json'.",
      ),
    ),
  );

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error.status, error.message);
    if (error instanceof InvalidEventError)
      return sendError(reply, error.kind === "json" ? 400 : 422, error.message);
    if (error instanceof StoreConflictError) return sendError(reply, 409, error.message);
    if (error instanceof StoreInputError) return sendError(reply, 400, error.message);
    if (error.statusCode && error.statusCode < 500) {
      const message =
        error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
          ? `The body is larger than ${options.bodyLimit ?? 64 * 1024} bytes.`
          : error.code === "FST_ERR_CTP_EMPTY_JSON_BODY"
            ? "The body is empty; send a JSON object."
            : `The request could not be read: ${error.message}`;
      return sendError(reply, error.statusCode, message);
    }
    options.logger?.error(
      { path: logText(request.url), error: logText(error.message) },
      "admin request failed",
    );
    const unavailable = error instanceof StoreError;
    return sendError(
      reply,
      503,
      unavailable ? "The store is not available right now. Retry later." : "The request failed. Retry later.",
    );
  });
  // Every route as a pattern with its methods, so a known path asked with another method answers 405 + Allow.
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook("onRoute", (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, "[^/]+")}$`);
    let entry = routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) {
      entry = { pattern, methods: new Set() };
      routes.push(entry);
    }
    for (const method of [route.method].flat()) entry.methods.add(method);
    if (entry.methods.has("GET")) entry.methods.add("HEAD");
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const route = routes.find((r) => r.pattern.test(path));
    if (route) {
      const allow = [...route.methods].sort().join(", ");
      reply.header("allow", allow);
      return sendError(reply, 405, `${request.method} is not allowed on ${path}; use ${allow}.`);
    }
    return sendError(reply, 404, `Nothing is served at ${request.method} ${path}. See GET /openapi.json.`);
  });

  // A repeated query parameter (`?state=a&state=b`) arrives as an array: refused by name rather than passed on.
  app.addHook("preValidation", async (request, reply) => {
    for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
      if (Array.isArray(value)) {
        return sendError(
          reply,
          400,
          `Query parameter '${name.slice(0, 50)}' is given ${value.length} times; give it once.`,
        );
      }
    }
  });

  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (PUBLIC_PATHS.has(path)) return;
    // The console's page and assets are public (they hold no data); everything it shows comes through the API below.
    // Decided by the route matched, not by the path's text, so no `/console/../x` reaches another route unchecked.
    // (A request that matches no route under /console only reaches the 404/405 answers.)
    const route = request.routeOptions.url;
    if (route === "/console" || route === "/console/*" || (route === undefined && consoleServer.serves(path)))
      return;
    const auth = await checkBearer(nodeHeaders(request.raw)("authorization"));
    if (!auth.ok) return sendError(reply.headers(auth.headers), auth.status, auth.message);
  });

  // The console (static, not part of the admin API's document).
  const serveConsole = async (request: FastifyRequest, reply: FastifyReply) => {
    const { status, headers, body } = consoleServer.respond(request.method, request.url.split("?")[0] ?? "/");
    return reply.code(status).headers(headers).send(body);
  };
  app.get("/console", serveConsole);
  app.get("/console/*", serveConsole);

  async function checkUrl(url: string): Promise<string> {
    const verdict = await resolveTarget(new URL(url), allow, resolve);
    if (!verdict.ok) throw new ApiError(400, `The URL is refused: ${verdict.reason}`);
    return url;
  }
  async function subscription({ id }: { id: string }): Promise<Subscription> {
    const found = await store.subscriptions.get(id);
    if (!found) throw new ApiError(404, `No subscription ${id}.`);
    return found;
  }
  async function delivery({ id }: { id: string }): Promise<Delivery> {
    // A whole number beyond what any delivery can have is not malformed, only unknown.
    const found = Number.isSafeInteger(Number(id)) ? await store.outbox.getDelivery(Number(id)) : null;
    if (!found) throw new ApiError(404, `No delivery ${id}.`);
    return found;
  }

  // Every route of the admin API's table, served: the schemas there validate each request before these run.
  registerRoutes<{
    getSubscription: Subscription;
    deleteSubscription: Subscription;
    updateSubscription: Subscription;
    disableSubscription: Subscription;
    enableSubscription: Subscription;
    rotateCredential: Subscription;
    recoverSubscription: Subscription;
    getDelivery: Delivery;
    listAttempts: Delivery;
    resendDelivery: Delivery;
  }>(app, {
    health: { handle: async () => ({ status: "ok" }) },
    ready: {
      handle: async (_input, { reply }) => {
        const ready = await readiness(store, { app: "sender", logger: options.logger });
        if (ready.status === 200) return ready.body;
        return sendError(reply, ready.status, ready.body.message);
      },
    },
    metrics: {
      handle: async (_input, { reply }) =>
        reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics()),
    },
    openapi: { handle: async () => adminOpenApi },

    createSubscription: {
      handle: async ({ body }) => {
        const url = await checkUrl(body.url);
        const token = body.token ?? createToken();
        const secret = body.secret ?? createSecret();
        const eventTypes = knownTypes(body.eventTypes);
        const signing = signingScheme(body.signing);
        const created = await store.subscriptions.create({
          url,
          token,
          secrets: [secret],
          ...(eventTypes !== undefined && { eventTypes }),
          ...(signing !== undefined && { signing }),
        });
        return { ...subscriptionJson(created), token, secret };
      },
    },
    listSubscriptions: {
      handle: async ({ query }) => {
        const all = await store.subscriptions.list(
          query.enabled === undefined ? {} : { enabled: query.enabled === "true" },
        );
        return { data: all.map(subscriptionJson), nextCursor: null };
      },
    },
    getSubscription: { load: subscription, handle: async (_input, { loaded }) => subscriptionJson(loaded) },
    updateSubscription: {
      load: subscription,
      handle: async ({ params, body }) => {
        const eventTypes = knownTypes(body.eventTypes);
        const signing = signingScheme(body.signing);
        return subscriptionJson(
          await store.subscriptions.update(params.id, {
            ...(body.url !== undefined && { url: await checkUrl(body.url) }),
            ...(eventTypes !== undefined && { eventTypes }),
            ...(signing !== undefined && { signing }),
          }),
        );
      },
    },
    deleteSubscription: {
      load: subscription,
      handle: async ({ params }) => {
        // A delete racing this one finds nothing: the same 404 as an unknown id.
        if (!(await store.subscriptions.delete(params.id)))
          throw new ApiError(404, `No subscription ${params.id}.`);
        return { id: params.id, deleted: true as const };
      },
    },
    disableSubscription: {
      load: subscription,
      handle: async ({ params, body }) =>
        subscriptionJson(await store.subscriptions.disable(params.id, body.reason ?? DEFAULT_DISABLE_REASON)),
    },
    enableSubscription: {
      load: subscription,
      handle: async ({ params }) => subscriptionJson(await store.subscriptions.enable(params.id)),
    },
    rotateCredential: {
      load: subscription,
      handle: async ({ params, body }) => {
        if (body.kind === "token") {
          const token = body.value ?? createToken();
          await store.subscriptions.update(params.id, { token });
          return { token };
        }
        const secret = body.value ?? createSecret();
        await store.subscriptions.rotateSecret(params.id, secret, { graceMs: body.graceSeconds * 1000 });
        return { secret };
      },
    },
    recoverSubscription: {
      load: subscription,
      handle: async ({ params, body }) => ({
        requeued: await store.outbox.recover(params.id, parseDateTime(body.since) as number),
      }),
    },

    publishEvent: {
      handle: async ({ query, headers, body }) => {
        const key = headers["idempotency-key"];
        const type = query.type ?? DEFAULT_EVENT_TYPE;
        // Lossless: the spec's int64 values are accepted as sent (the sender only relays bytes).
        const result = await tracePublish(tracer(), isKnownType(type) ? type : undefined, (traceContext) =>
          store.outbox.publish(body, {
            mode: "lossless",
            catalog,
            ...(query.type !== undefined && { eventType: query.type }),
            ...(key !== undefined && { idempotencyKey: key }),
            ...(traceContext && { traceContext }),
          }),
        );
        return { messageId: result.messageId, deliveries: result.deliveries, duplicate: result.duplicate };
      },
    },
    listEventTypes: { handle: async () => ({ data: [...catalog] }) },
    getMessage: {
      handle: async ({ params }, { reply }) => {
        const message = await store.outbox.getMessage(params.id);
        if (!message) throw new ApiError(404, `No message ${params.id}.`);
        const meta = JSON.stringify({
          id: message.id,
          idempotencyKey: message.idempotencyKey,
          eventType: message.eventType,
          createdAt: message.createdAt.toISOString(),
        });
        // The payload is embedded as published, so int64 ids stay exact.
        return reply
          .header("content-type", "application/json; charset=utf-8")
          .send(`${meta.slice(0, -1)},"payload":${decoder.decode(message.body)}}`);
      },
    },

    listDeliveries: {
      handle: async ({ query }) => {
        const page = await store.outbox.listDeliveries({
          ...(query.state && { state: query.state }),
          ...(query.subscriptionId && { subscriptionId: query.subscriptionId }),
          ...(query.messageId && { messageId: query.messageId }),
          ...(query.limit !== undefined && { limit: query.limit }),
          cursor: query.cursor ?? null,
        });
        return { data: page.items.map(deliveryJson), nextCursor: page.nextCursor };
      },
    },
    getDelivery: { load: delivery, handle: async (_input, { loaded }) => deliveryJson(loaded) },
    listAttempts: {
      load: delivery,
      handle: async (_input, { loaded }) => {
        const attempts = await store.outbox.listAttempts(loaded.id);
        return {
          // Numbered through the whole history: a resend starts a new retry round, not a new count.
          data: attempts.map((a, i) => ({
            attempt: i + 1,
            attemptedAt: a.attemptedAt.toISOString(),
            status: a.status,
            latencyMs: a.latencyMs,
            responseBody: a.responseBody,
            error: a.error,
          })),
        };
      },
    },
    resendDelivery: {
      load: delivery,
      handle: async (_input, { loaded }) => deliveryJson(await store.outbox.resend(loaded.id)),
    },
  });

  await app.ready();
  return app;
}
function sendError(reply: FastifyReply, status: number, message: string) {
  return reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .send({ error: status, message });
}

function subscriptionJson(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    disabledAt: iso(s.disabledAt),
    failingSince: iso(s.failingSince),
    signingSecrets: s.secrets.filter((x) => x.expiresAt === null || x.expiresAt.getTime() > Date.now())
      .length,
    eventTypes: s.eventTypes,
    signing: s.signing,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    messageId: d.messageId,
    subscriptionId: d.subscriptionId,
    state: d.state,
    attempts: d.attempts,
    dueAt: d.dueAt.toISOString(),
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    finishedAt: iso(d.finishedAt),
  };
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
