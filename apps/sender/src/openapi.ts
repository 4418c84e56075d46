/**
 * The sender's admin API as an OpenAPI 3.1 document (served at `GET /openapi.json`). It is separate from the Plant
 * Store contract in `@plant-store/spec`: this is how operators and the CLI drive the sender.
 */
const error = { $ref: "#/components/responses/Error" };
const json = (schema: object) => ({ content: { "application/json": { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const idParam = (name: string, description: string, type: "string" | "integer" = "string") => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type },
});
const sub = idParam("id", "Subscription id (`sub_…`).");
const del = idParam("id", "Delivery id.", "integer");
const page = (item: string) => ({
  type: "object",
  required: ["data", "nextCursor"],
  properties: { data: { type: "array", items: ref(item) }, nextCursor: { type: ["string", "null"] } },
});

/** The admin API document. */
export const adminOpenApi = withCommonResponses({
  openapi: "3.1.0",
  info: {
    title: "Plant Store sender admin API",
    version: "1.0.0",
    license: { name: "MIT", identifier: "MIT" },
    description:
      "Manage the subscribers of the New Plant webhook, publish events and inspect deliveries. Every error is `{ error, message }`. A method an operation does not list, on a path it does, answers 405 with an `Allow` header naming the methods that path takes.",
  },
  servers: [{ url: "http://127.0.0.1:4001" }],
  security: [{ adminToken: [] }],
  tags: [
    { name: "subscriptions", description: "Where New Plant webhooks are delivered." },
    { name: "events", description: "Publishing New Plant events." },
    { name: "deliveries", description: "One message to one subscription, and its attempts." },
    { name: "operations", description: "Health and metrics (no token)." },
  ],
  paths: {
    "/subscriptions": {
      post: {
        tags: ["subscriptions"],
        operationId: "createSubscription",
        summary: "Create a subscription",
        description:
          "The URL is checked by the SSRF guard. `token` and `secret` are generated when omitted and returned only in this response.",
        requestBody: { required: true, ...json(ref("SubscriptionInput")) },
        responses: {
          "201": { description: "Created.", ...json(ref("SubscriptionWithCredentials")) },
          "400": error,
          "401": error,
        },
      },
      get: {
        tags: ["subscriptions"],
        operationId: "listSubscriptions",
        summary: "List subscriptions",
        parameters: [{ name: "enabled", in: "query", schema: { type: "boolean" } }],
        responses: {
          "200": { description: "Subscriptions.", ...json(page("Subscription")) },
          "400": error,
          "401": error,
        },
      },
    },
    "/subscriptions/{id}": {
      parameters: [sub],
      get: {
        tags: ["subscriptions"],
        operationId: "getSubscription",
        summary: "Get a subscription",
        responses: {
          "200": { description: "The subscription.", ...json(ref("Subscription")) },
          "401": error,
          "404": error,
        },
      },
      patch: {
        tags: ["subscriptions"],
        operationId: "updateSubscription",
        summary: "Change the URL",
        requestBody: { required: true, ...json({ type: "object", properties: { url: { type: "string" } } }) },
        responses: {
          "200": { description: "Updated.", ...json(ref("Subscription")) },
          "400": error,
          "401": error,
          "404": error,
        },
      },
      delete: {
        tags: ["subscriptions"],
        operationId: "deleteSubscription",
        summary: "Delete a subscription",
        description:
          "Deletes the subscription with its deliveries and their attempts; its pending deliveries are never sent. Messages stay (other subscriptions deliver them). An attempt already in flight may still reach the endpoint once; its outcome is not recorded. To stop deliveries but keep the history, disable it instead.",
        responses: {
          "204": { description: "Deleted." },
          "401": error,
          "404": error,
        },
      },
    },
    "/subscriptions/{id}/disable": {
      parameters: [sub],
      post: {
        tags: ["subscriptions"],
        operationId: "disableSubscription",
        summary: "Stop delivering to it",
        requestBody: {
          required: false,
          ...json({
            type: "object",
            properties: { reason: { type: "string", minLength: 1, maxLength: 1000 } },
          }),
        },
        responses: {
          "200": { description: "Disabled.", ...json(ref("Subscription")) },
          "401": error,
          "404": error,
        },
      },
    },
    "/subscriptions/{id}/enable": {
      parameters: [sub],
      post: {
        tags: ["subscriptions"],
        operationId: "enableSubscription",
        summary: "Deliver to it again",
        responses: {
          "200": { description: "Enabled.", ...json(ref("Subscription")) },
          "401": error,
          "404": error,
        },
      },
    },
    "/subscriptions/{id}/rotate": {
      parameters: [sub],
      post: {
        tags: ["subscriptions"],
        operationId: "rotateCredential",
        summary: "Rotate the token or the signing secret",
        description:
          "A new secret signs from now on; the previous one keeps signing too (both signatures are sent) for `graceSeconds` (default 86400), so receivers can switch without a gap. A new token replaces the old at once: configure the receiver to accept both first.",
        requestBody: { required: true, ...json(ref("RotateInput")) },
        responses: {
          "200": {
            description: "The new value, shown once.",
            ...json({
              type: "object",
              properties: { token: { type: "string" }, secret: { type: "string" } },
            }),
          },
          "400": error,
          "401": error,
          "404": error,
        },
      },
    },
    "/subscriptions/{id}/recover": {
      parameters: [sub],
      post: {
        tags: ["subscriptions"],
        operationId: "recoverSubscription",
        summary: "Requeue its failed deliveries since a time",
        requestBody: {
          required: true,
          ...json({
            type: "object",
            required: ["since"],
            properties: {
              since: {
                type: "string",
                format: "date-time",
                description: "RFC 3339, e.g. 2026-11-22T10:00:00Z: failed deliveries created at or after it.",
              },
            },
          }),
        },
        responses: {
          "200": {
            description: "How many were requeued.",
            ...json({
              type: "object",
              required: ["requeued"],
              properties: { requeued: { type: "integer" } },
            }),
          },
          "400": error,
          "401": error,
          "404": error,
          "409": { description: "The subscription is disabled; enable it first.", ...json(ref("Error")) },
        },
      },
    },
    "/events": {
      post: {
        tags: ["events"],
        operationId: "publishEvent",
        summary: "Publish a New Plant event to every enabled subscription",
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description:
              "The same key returns the same message (and its fan-out count) instead of publishing twice. One header line only: a repeated Idempotency-Key is refused with 400.",
            schema: { type: "string", minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: {
          required: true,
          description:
            "UTF-8 JSON (400 otherwise); the bytes are stored and sent exactly, except a leading byte order mark, which is dropped.",
          ...json({
            type: "object",
            required: ["id", "name"],
            properties: {
              id: { type: "integer", format: "int64" },
              name: { type: "string" },
              tag: { type: "string" },
            },
          }),
        },
        responses: {
          "202": { description: "Stored; deliveries are queued.", ...json(ref("Published")) },
          "400": error,
          "401": error,
          "409": {
            description: "The Idempotency-Key was already used for a different event.",
            ...json(ref("Error")),
          },
          "415": error,
          "422": error,
        },
      },
    },
    "/messages/{id}": {
      parameters: [idParam("id", "Message id (`msg_…`).")],
      get: {
        tags: ["events"],
        operationId: "getMessage",
        summary: "A published message and its payload",
        responses: {
          "200": { description: "The message.", ...json(ref("Message")) },
          "401": error,
          "404": error,
        },
      },
    },
    "/deliveries": {
      get: {
        tags: ["deliveries"],
        operationId: "listDeliveries",
        summary: "List deliveries, newest first",
        parameters: [
          {
            name: "state",
            in: "query",
            schema: { type: "string", enum: ["pending", "leased", "delivered", "failed"] },
          },
          { name: "subscriptionId", in: "query", schema: { type: "string" } },
          { name: "messageId", in: "query", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000 } },
          { name: "cursor", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "A page.", ...json(page("Delivery")) },
          "400": error,
          "401": error,
        },
      },
    },
    "/deliveries/{id}": {
      parameters: [del],
      get: {
        tags: ["deliveries"],
        operationId: "getDelivery",
        summary: "A delivery",
        responses: {
          "200": { description: "The delivery.", ...json(ref("Delivery")) },
          "401": error,
          "404": error,
        },
      },
    },
    "/deliveries/{id}/attempts": {
      parameters: [del],
      get: {
        tags: ["deliveries"],
        operationId: "listAttempts",
        summary: "Every attempt of a delivery",
        responses: {
          "200": {
            description: "Attempts, oldest first.",
            ...json({
              type: "object",
              required: ["data"],
              properties: { data: { type: "array", items: ref("Attempt") } },
            }),
          },
          "401": error,
          "404": error,
        },
      },
    },
    "/deliveries/{id}/resend": {
      parameters: [del],
      post: {
        tags: ["deliveries"],
        operationId: "resendDelivery",
        summary: "Send a delivered or failed delivery again, now",
        responses: {
          "200": { description: "Queued.", ...json(ref("Delivery")) },
          "401": error,
          "404": error,
          "409": error,
        },
      },
    },
    "/healthz": {
      get: {
        tags: ["operations"],
        operationId: "health",
        summary: "The process is alive",
        security: [],
        responses: {
          "200": {
            description: "Alive.",
            ...json({ type: "object", required: ["status"], properties: { status: { const: "ok" } } }),
          },
        },
      },
    },
    "/readyz": {
      get: {
        tags: ["operations"],
        operationId: "ready",
        summary: "The store answers",
        security: [],
        responses: {
          "200": {
            description: "Ready: the store can take a write.",
            ...json({
              type: "object",
              required: ["status", "backend"],
              properties: { status: { const: "ready" }, backend: { enum: ["sqlite", "postgres"] } },
            }),
          },
          "503": error,
        },
      },
    },
    "/openapi.json": {
      get: {
        tags: ["operations"],
        operationId: "openapi",
        summary: "This document",
        security: [],
        responses: {
          "200": { description: "The admin API as OpenAPI 3.1.", ...json({ type: "object" }) },
        },
      },
    },
    "/metrics": {
      get: {
        tags: ["operations"],
        operationId: "metrics",
        summary: "Prometheus metrics",
        security: [],
        responses: {
          "200": {
            description: "Prometheus text format.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: { adminToken: { type: "http", scheme: "bearer" } },
    responses: {
      Error: { description: "What went wrong and what to do.", ...json(ref("Error")) },
    },
    schemas: {
      Error: {
        type: "object",
        required: ["error", "message"],
        properties: { error: { type: "integer", format: "int32" }, message: { type: "string" } },
      },
      SubscriptionInput: {
        type: "object",
        required: ["url"],
        properties: {
          url: { type: "string", description: "The receiver's New Plant endpoint, http(s)." },
          token: {
            type: "string",
            description: "Bearer token the receiver accepts; generated when omitted.",
          },
          secret: { type: "string", description: "`whsec_` signing secret; generated when omitted." },
        },
      },
      Subscription: {
        type: "object",
        required: ["id", "url", "enabled", "createdAt", "updatedAt"],
        properties: {
          id: { type: "string" },
          url: { type: "string" },
          enabled: { type: "boolean" },
          disabledReason: { type: ["string", "null"] },
          disabledAt: { type: ["string", "null"], format: "date-time" },
          failingSince: { type: ["string", "null"], format: "date-time" },
          signingSecrets: {
            type: "integer",
            description: "How many secrets sign right now (more than 1 during a rotation).",
          },
          createdAt: { type: "string", format: "date-time" },
          updatedAt: { type: "string", format: "date-time" },
        },
      },
      SubscriptionWithCredentials: {
        allOf: [
          ref("Subscription"),
          {
            type: "object",
            required: ["token", "secret"],
            properties: { token: { type: "string" }, secret: { type: "string" } },
          },
        ],
      },
      RotateInput: {
        type: "object",
        required: ["kind"],
        properties: {
          kind: { type: "string", enum: ["token", "secret"] },
          value: { type: "string", description: "The new value; generated when omitted." },
          graceSeconds: {
            type: "integer",
            minimum: 0,
            maximum: 604800,
            description:
              "Secrets only: how long the previous one keeps signing (default 86400, at most 7 days).",
          },
        },
      },
      Published: {
        type: "object",
        required: ["messageId", "deliveries", "duplicate"],
        properties: {
          messageId: { type: "string" },
          deliveries: {
            type: "integer",
            description:
              "Deliveries the message fanned out to (for a duplicate, those of the original publish).",
          },
          duplicate: { type: "boolean" },
        },
      },
      Message: {
        type: "object",
        required: ["id", "createdAt", "payload"],
        properties: {
          id: { type: "string" },
          idempotencyKey: { type: ["string", "null"] },
          createdAt: { type: "string", format: "date-time" },
          payload: { type: "object", description: "The New Plant payload exactly as published." },
        },
      },
      Delivery: {
        type: "object",
        required: ["id", "messageId", "subscriptionId", "state", "attempts", "dueAt"],
        properties: {
          id: { type: "integer" },
          messageId: { type: "string" },
          subscriptionId: { type: "string" },
          state: { type: "string", enum: ["pending", "leased", "delivered", "failed"] },
          attempts: { type: "integer" },
          dueAt: { type: "string", format: "date-time" },
          lastStatus: { type: ["integer", "null"] },
          lastError: { type: ["string", "null"] },
          createdAt: { type: "string", format: "date-time" },
          updatedAt: { type: "string", format: "date-time" },
          finishedAt: { type: ["string", "null"], format: "date-time" },
        },
      },
      Attempt: {
        type: "object",
        required: ["attempt", "attemptedAt", "latencyMs"],
        properties: {
          attempt: {
            type: "integer",
            description: "1-based number in the delivery's whole history (a resend continues the count).",
          },
          attemptedAt: { type: "string", format: "date-time" },
          status: { type: ["integer", "null"] },
          latencyMs: { type: "integer" },
          responseBody: { type: ["string", "null"], description: "The first 4 KiB of the response." },
          error: { type: ["string", "null"] },
        },
      },
    },
  },
} as const);

type Operation = {
  tags?: readonly string[];
  parameters?: readonly { in?: string }[];
  responses: Record<string, unknown>;
};

/**
 * Adds the answers every operation can give, so the document lists what the API really returns: on every one 408
 * (a request that arrives too slowly) and 431 (headers too large); on each authenticated one 400 (malformed
 * `Authorization`), 401 and 503 (store unavailable); on each that takes a body (POST, PATCH) 400 (not JSON), 413
 * (over the body limit) and 415 (not `application/json`), also where it expects none and one is sent; on each with a
 * path parameter 414 (a segment over 100 characters). Responses end up sorted.
 */
function withCommonResponses<T extends { paths: Record<string, Record<string, unknown>> }>(doc: T): T {
  for (const item of Object.values(doc.paths)) {
    const pathParameters = (item.parameters as Operation["parameters"]) ?? [];
    for (const [method, value] of Object.entries(item)) {
      if (!["get", "post", "patch", "put", "delete"].includes(method)) continue;
      const op = value as Operation;
      const withPath = [...pathParameters, ...(op.parameters ?? [])].some((p) => p.in === "path");
      const extra = [
        "408",
        "431",
        ...(op.tags?.includes("operations") ? [] : ["400", "401", "503"]),
        ...(method === "post" || method === "patch" ? ["400", "413", "415"] : []),
        ...(withPath ? ["414"] : []),
      ];
      const responses: Record<string, unknown> = { ...op.responses };
      for (const status of extra) responses[status] ??= error;
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return doc;
}
