import { logText } from "@plant-store/app-kit";
import {
  bearerChallenge,
  checkTarget,
  createSecret,
  createToken,
  createTokenVerifier,
  parseAuthorization,
  parseDateTime,
  parseSecret,
} from "@plant-store/core";
import { createNodeServer, nodeHeaders } from "@plant-store/core/node";
import {
  type Delivery,
  type DeliveryState,
  InvalidEventError,
  MAX_GRACE_MS,
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
import { type AllowList, type Resolver, resolveTarget } from "./ssrf.js";

/** Options of {@link createAdminApi}. */
export interface AdminApiOptions {
  store: Store;
  adminTokens: readonly string[];
  allow: AllowList;
  resolve: Resolver;
  metrics: SenderMetrics;
  logger?: Logger;
  /** Body cap of admin requests. Default 64 KiB. */
  bodyLimit?: number;
  /** Time allowed to receive a request's headers (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number;
}

/** An HTTP error with the contract's `{ error, message }` body. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const decoder = new TextDecoder();
/** Request bodies: invalid UTF-8 is refused rather than relayed with U+FFFD; a leading BOM is dropped. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const DEFAULT_GRACE_SECONDS = 86_400;
/** The longest secret rotation grace, 7 days (as Stripe's). */
const MAX_GRACE_SECONDS = MAX_GRACE_MS / 1000;
/** The longest `reason` a subscription is disabled with. */
const MAX_REASON_LENGTH = 1000;

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
  const verifier = createTokenVerifier(options.adminTokens);
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
    // createNodeServer answers these already (answerClientError); Fastify's default would write a second answer.
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
    const path = request.url.split("?")[0];
    if (path === "/healthz" || path === "/readyz" || path === "/metrics" || path === "/openapi.json") return;
    const auth = parseAuthorization(nodeHeaders(request.raw)("authorization"));
    if (!auth.ok) {
      const malformed = auth.reason !== "missing";
      reply.header(
        "www-authenticate",
        bearerChallenge({ realm: "plant-store-sender", ...(malformed && { error: "invalid_request" }) }),
      );
      return sendError(
        reply,
        malformed ? 400 : 401,
        malformed
          ? `Malformed Authorization header: ${auth.message}`
          : "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
      );
    }
    if (!(await verifier.verify(auth.token))) {
      reply.header(
        "www-authenticate",
        bearerChallenge({ realm: "plant-store-sender", error: "invalid_token" }),
      );
      return sendError(reply, 401, "The admin token is not accepted.");
    }
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    try {
      await store.ping();
      return { status: "ready", backend: store.backend };
    } catch (error) {
      // The body names the code only; the details (a path, a host) go to the log, not to whoever asks.
      const code = error instanceof StoreError ? error.code : "store_error";
      options.logger?.warn({ code, error: (error as Error)?.message }, "not ready");
      return sendError(
        reply,
        503,
        `Not ready (${code}): the store cannot safely take writes right now. The sender's log says why.`,
      );
    }
  });
  app.get("/metrics", async (_request, reply) =>
    reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get("/openapi.json", async () => adminOpenApi);

  async function checkUrl(url: unknown): Promise<string> {
    if (typeof url !== "string" || url === "")
      throw new ApiError(400, "url is required: the receiver's http(s) endpoint.");
    const shape = checkTarget({ url, token: "x", secrets: [] });
    if (!shape.ok) throw new ApiError(400, shape.reason);
    const verdict = await resolveTarget(shape.url, allow, resolve);
    if (!verdict.ok) throw new ApiError(400, `The URL is refused: ${verdict.reason}`);
    return url;
  }
  function checkToken(token: unknown): string {
    if (typeof token !== "string" || !checkTarget({ url: "http://x/", token, secrets: [] }).ok) {
      throw new ApiError(
        400,
        "token must be a bearer token (RFC 6750 b64token characters), e.g. from `plant-store token create`.",
      );
    }
    return token;
  }
  function checkSecret(secret: unknown): string {
    if (typeof secret !== "string") throw new ApiError(400, "secret must be a whsec_ string.");
    try {
      parseSecret(secret);
    } catch (error) {
      throw new ApiError(400, (error as Error).message);
    }
    return secret;
  }
  async function subscription(id: string): Promise<Subscription> {
    const found = await store.subscriptions.get(id);
    if (!found) throw new ApiError(404, `No subscription ${id}.`);
    return found;
  }

  app.post("/subscriptions", async (request, reply) => {
    const body = objectBody(request);
    const url = await checkUrl(body.url);
    const token = body.token === undefined ? createToken() : checkToken(body.token);
    const secret = body.secret === undefined ? createSecret() : checkSecret(body.secret);
    const created = await store.subscriptions.create({ url, token, secrets: [secret] });
    return reply.code(201).send({ ...subscriptionJson(created), token, secret });
  });
  app.get("/subscriptions", async (request) => {
    const { enabled } = request.query as { enabled?: string };
    if (enabled !== undefined && enabled !== "true" && enabled !== "false") {
      throw new ApiError(400, "enabled must be true or false.");
    }
    const all = await store.subscriptions.list(enabled === undefined ? {} : { enabled: enabled === "true" });
    return { data: all.map(subscriptionJson), nextCursor: null };
  });
  app.get("/subscriptions/:id", async (request) => subscriptionJson(await subscription(param(request))));
  app.patch("/subscriptions/:id", async (request) => {
    const id = param(request);
    await subscription(id);
    const body = objectBody(request);
    if (body.url === undefined) throw new ApiError(400, "Send the field to change: { url }.");
    return subscriptionJson(await store.subscriptions.update(id, { url: await checkUrl(body.url) }));
  });
  // Deleting drops its pending deliveries with it (messages stay); an attempt already in flight may still arrive
  // once, and its outcome is not recorded. To keep the history, disable instead.
  app.delete("/subscriptions/:id", async (request, reply) => {
    if (!(await store.subscriptions.delete(param(request))))
      throw new ApiError(404, `No subscription ${param(request)}.`);
    return reply.code(204).send();
  });
  app.post("/subscriptions/:id/disable", async (request) => {
    const id = param(request);
    await subscription(id);
    const body = request.body === undefined ? {} : objectBody(request);
    if (
      body.reason !== undefined &&
      (typeof body.reason !== "string" || body.reason === "" || body.reason.length > MAX_REASON_LENGTH)
    ) {
      throw new ApiError(
        400,
        `reason must be a string of 1 to ${MAX_REASON_LENGTH} characters, or left out.`,
      );
    }
    const reason = (body.reason as string | undefined) ?? "Disabled by an operator.";
    return subscriptionJson(await store.subscriptions.disable(id, reason));
  });
  app.post("/subscriptions/:id/enable", async (request) => {
    const id = param(request);
    await subscription(id);
    return subscriptionJson(await store.subscriptions.enable(id));
  });
  app.post("/subscriptions/:id/rotate", async (request) => {
    const id = param(request);
    await subscription(id);
    const body = objectBody(request);
    if (body.kind === "token") {
      if (body.graceSeconds !== undefined) {
        throw new ApiError(
          400,
          "graceSeconds applies to secrets only: a new token replaces the old one at once (configure the receiver to accept both first).",
        );
      }
      const token = body.value === undefined ? createToken() : checkToken(body.value);
      await store.subscriptions.update(id, { token });
      return { token };
    }
    if (body.kind === "secret") {
      const secret = body.value === undefined ? createSecret() : checkSecret(body.value);
      const grace = body.graceSeconds ?? DEFAULT_GRACE_SECONDS;
      if (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
        throw new ApiError(
          400,
          `graceSeconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (7 days).`,
        );
      }
      await store.subscriptions.rotateSecret(id, secret, { graceMs: grace * 1000 });
      return { secret };
    }
    throw new ApiError(400, 'kind must be "token" or "secret".');
  });
  app.post("/subscriptions/:id/recover", async (request) => {
    const id = param(request);
    await subscription(id);
    const text = objectBody(request).since;
    // Strict: Date.parse would read 2026-02-30 as March 2, and 24:00 as the next day.
    const since = typeof text === "string" ? parseDateTime(text) : null;
    if (since === null)
      throw new ApiError(
        400,
        "since must be an RFC 3339 date-time string with an existing date and time, e.g. 2026-11-22T10:00:00Z.",
      );
    return { requeued: await store.outbox.recover(id, since) };
  });

  app.post("/events", async (request, reply) => {
    if (typeof request.body !== "string") throw new ApiError(400, "Send the New Plant as a JSON body.");
    const key = request.headers["idempotency-key"];
    // Node joins repeated header lines with ", ": count the raw lines so "k1" + "k2" is not taken as one key.
    const lines = request.raw.rawHeaders.filter(
      (h, i) => i % 2 === 0 && h.toLowerCase() === "idempotency-key",
    );
    if (lines.length > 1 || Array.isArray(key) || (key !== undefined && (key === "" || key.length > 255))) {
      throw new ApiError(400, "Idempotency-Key must be one value of 1 to 255 characters.");
    }
    // Lossless: the spec's id is int64 and the sender only relays bytes, so every int64 id is accepted as sent.
    const result = await store.outbox.publish(request.body, {
      mode: "lossless",
      ...(key !== undefined && { idempotencyKey: key }),
    });
    return reply
      .code(202)
      .send({ messageId: result.messageId, deliveries: result.deliveries, duplicate: result.duplicate });
  });
  app.get("/messages/:id", async (request, reply) => {
    const message = await store.outbox.getMessage(param(request));
    if (!message) throw new ApiError(404, `No message ${param(request)}.`);
    const meta = JSON.stringify({
      id: message.id,
      idempotencyKey: message.idempotencyKey,
      createdAt: message.createdAt.toISOString(),
    });
    // The payload is embedded as published, so int64 ids stay exact.
    return reply
      .header("content-type", "application/json; charset=utf-8")
      .send(`${meta.slice(0, -1)},"payload":${decoder.decode(message.body)}}`);
  });

  app.get("/deliveries", async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const states = ["pending", "leased", "delivered", "failed"];
    if (q.state !== undefined && !states.includes(q.state)) {
      throw new ApiError(400, `state must be one of ${states.join(", ")}.`);
    }
    if (
      q.limit !== undefined &&
      !(/^\d{1,4}$/.test(q.limit) && Number(q.limit) >= 1 && Number(q.limit) <= 1000)
    )
      throw new ApiError(400, "limit must be 1 to 1000.");
    const page = await store.outbox.listDeliveries({
      ...(q.state && { state: q.state as DeliveryState }),
      ...(q.subscriptionId && { subscriptionId: q.subscriptionId }),
      ...(q.messageId && { messageId: q.messageId }),
      ...(q.limit && { limit: Number(q.limit) }),
      cursor: q.cursor ?? null,
    });
    return { data: page.items.map(deliveryJson), nextCursor: page.nextCursor };
  });
  app.get("/deliveries/:id", async (request) => deliveryJson(await delivery(request)));
  app.get("/deliveries/:id/attempts", async (request) => {
    const found = await delivery(request);
    const attempts = await store.outbox.listAttempts(found.id);
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
  });
  app.post("/deliveries/:id/resend", async (request) => {
    const found = await delivery(request);
    return deliveryJson(await store.outbox.resend(found.id));
  });

  async function delivery(request: FastifyRequest): Promise<Delivery> {
    const raw = param(request);
    if (!/^\d{1,20}$/.test(raw)) throw new ApiError(400, "A delivery id is a whole number.");
    // A whole number beyond what any delivery can have is not malformed, only unknown.
    const found = Number.isSafeInteger(Number(raw)) ? await store.outbox.getDelivery(Number(raw)) : null;
    if (!found) throw new ApiError(404, `No delivery ${raw}.`);
    return found;
  }

  await app.ready();
  return app;
}

function sendError(reply: FastifyReply, status: number, message: string) {
  return reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .send({ error: status, message });
}

function param(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

function objectBody(request: FastifyRequest): Record<string, unknown> {
  if (typeof request.body !== "string") throw new ApiError(400, "Send a JSON object body.");
  let value: unknown;
  try {
    value = JSON.parse(request.body);
  } catch {
    throw new ApiError(400, "The body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "The body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

function subscriptionJson(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    disabledAt: s.disabledAt,
    failingSince: s.failingSince,
    signingSecrets: s.secrets.filter((x) => x.expiresAt === null || x.expiresAt.getTime() > Date.now())
      .length,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    messageId: d.messageId,
    subscriptionId: d.subscriptionId,
    state: d.state,
    attempts: d.attempts,
    dueAt: d.dueAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    finishedAt: d.finishedAt,
  };
}
