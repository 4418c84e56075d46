import {
  checkTarget,
  DEFAULT_GRACE_MS,
  DELIVERY_STATES,
  EVENT_TYPE_PATTERN,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_RULE,
  MAX_BATCH_EVENTS,
  MAX_DISABLE_REASON_LENGTH,
  MAX_GRACE_MS,
  PAGE_SIZE,
  parseDateTime,
  parseSecret,
  SIGNING_SCHEMES,
} from "@plant-store/core";
import type { NewPlant } from "@plant-store/spec";
import { z } from "zod";
import { description, metadata, subscriptionUid } from "./application-schemas.js";

/**
 * What a schema stands for in the OpenAPI document when zod cannot say it (a body kept as raw text, a number given
 * as query text): `toJSONSchema`'s `override` replaces the schema's JSON Schema with this.
 */
export const jsonSchemaOverrides = new WeakMap<z.ZodType, Record<string, unknown>>();
const documentedAs = <T extends z.ZodType>(schema: T, jsonSchema: Record<string, unknown>): T => {
  jsonSchemaOverrides.set(schema, jsonSchema);
  return schema;
};

/** The spec's New Plant, referenced: the document copies its component from `@plant-store/spec`. */
const newPlantRef = { $ref: "#/components/schemas/NewPlant" };

const EVENT_TYPE_RULE =
  'an event type is an operationId of the contract, e.g. "newPlant" (see GET /event-types).';
const eventType = z.string({ error: EVENT_TYPE_RULE }).regex(EVENT_TYPE_PATTERN, { error: EVENT_TYPE_RULE });
const EVENT_TYPES_RULE =
  "eventTypes must be a non-empty array of distinct event types, or null for every type.";
/** A subscription's filter (as Svix's filterTypes): the event types it receives; null or absent = every type. */
export const eventTypesField = z
  .array(eventType, { error: EVENT_TYPES_RULE })
  .min(1, { error: EVENT_TYPES_RULE })
  .refine((types) => new Set(types).size === types.length, { error: EVENT_TYPES_RULE })
  .nullable()
  .meta({
    description: 'The event types it receives (e.g. ["newPlant"]); null = every type, now and added later.',
  });
/** A target's signing scheme (a subscription's, a destination's), each described by its own document. */
export const signingScheme = z.enum(SIGNING_SCHEMES, {
  error: `signing must be one of ${SIGNING_SCHEMES.join(", ")}.`,
});
const signing = signingScheme.meta({
  description:
    "symmetric: v1 (HMAC, the subscription's whsec_ secrets); asymmetric: v1a (ed25519, the sender's whsk_ key); both, while a receiver migrates.",
});

/** A time in an answer: an RFC 3339 date-time string. */
export const dateTime = z.string().meta({ format: "date-time" });
/** A time in an answer that may not have come yet. */
export const nullableDateTime = z.string().nullable().meta({ format: "date-time" });

// --- rules shared by the fields -------------------------------------------------------------------------------

const MAX_GRACE_SECONDS = MAX_GRACE_MS / 1000;
const URL_REQUIRED = "url is required: the receiver's http(s) endpoint.";
const TOKEN_RULE =
  "token must be a bearer token (RFC 6750 b64token characters), e.g. from `plant-store token create`.";
const GRACE_RULE = `graceSeconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (7 days).`;
const REASON_RULE = `reason must be a string of 1 to ${MAX_DISABLE_REASON_LENGTH} characters, or left out.`;
const SINCE_RULE =
  "since must be an RFC 3339 date-time string with an existing date and time, e.g. 2026-11-22T10:00:00Z.";

/** A subscription URL's shape (absolute http(s), no credentials); the sender's SSRF guard judges its addresses. */
const targetUrl = (missing: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? missing : URL_REQUIRED) })
    .min(1, { error: URL_REQUIRED })
    .superRefine((url, ctx) => {
      const shape = checkTarget({ url, token: "x", secrets: [] });
      if (!shape.ok) ctx.addIssue({ code: "custom", message: shape.reason });
    })
    .meta({
      description: "The receiver's endpoint, http(s): it receives every event type the subscription takes.",
    });

/** A bearer token the receiver accepts: RFC 6750 b64token characters. */
const bearerToken = (field: string) =>
  z
    .string({ error: TOKEN_RULE.replace("token", field) })
    .refine((token) => checkTarget({ url: "http://x/", token, secrets: [] }).ok, {
      error: TOKEN_RULE.replace("token", field),
    });

/** A `since` of a request body: an RFC 3339 date-time of an existing date and time (a recover's, a replay's). */
export const sinceDateTime = z
  .string({ error: SINCE_RULE })
  .refine((text) => parseDateTime(text) !== null, { error: SINCE_RULE });

/**
 * A path id that is a whole number (a delivery's, a forward's): one beyond any row is unknown, not malformed.
 *
 * @example
 * ```ts
 * const ForwardParams = z.object({ id: wholeNumberId("Forward") });
 * ```
 */
export const wholeNumberId = (what: "Delivery" | "Forward") =>
  z
    .string()
    .regex(/^\d{1,20}$/, { error: `A ${what.toLowerCase()} id is a whole number.` })
    .meta({ description: `${what} id, a whole number.` });

/** A `whsec_` signing secret. */
export const signingSecret = (field: string) =>
  z.string({ error: `${field} must be a whsec_ string.` }).superRefine((secret, ctx) => {
    try {
      parseSecret(secret);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  });

// --- parameters -----------------------------------------------------------------------------------------------

/** Path parameters of `/subscriptions/{id}…`. */
export const SubscriptionParams = z.object({
  id: z.string().meta({ description: "Subscription id (`sub_…`)." }),
});

/** Path parameters of `/messages/{id}`. */
export const MessageParams = z.object({ id: z.string().meta({ description: "Message id (`msg_…`)." }) });

/** Path parameters of `/deliveries/{id}…`: a whole number (one beyond any delivery is unknown, not malformed). */
export const DeliveryParams = z.object({ id: wholeNumberId("Delivery") });

/** Query of `GET /subscriptions`. */
export const ListSubscriptionsQuery = z.object({
  application: z.string().optional().meta({
    description: "Only this application's (its id `app_…` or uid); a portal token sees its own only.",
  }),
  enabled: z
    .enum(["true", "false"], { error: "enabled must be true or false." })
    .optional()
    .meta({ description: "Only enabled (`true`) or disabled (`false`) subscriptions." }),
});

/** A page size given as query text. */
export const pageLimit = documentedAs(
  z
    .string()
    .regex(/^\d{1,4}$/, { error: `limit must be 1 to ${PAGE_SIZE.max}.` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= PAGE_SIZE.max, { error: `limit must be 1 to ${PAGE_SIZE.max}.` }),
  {
    type: "integer",
    minimum: 1,
    maximum: PAGE_SIZE.max,
    default: PAGE_SIZE.default,
    description: "Page size.",
  },
);

/** A list's filter by delivery state (deliveries, a destination's forwards). */
export const stateFilter = z
  .enum(DELIVERY_STATES, { error: `state must be one of ${DELIVERY_STATES.join(", ")}.` })
  .optional();
/** A list's cursor: where the previous page stopped. */
export const pageCursor = z
  .string()
  .optional()
  .meta({ description: "The `nextCursor` of the previous page." });

/** Query of `GET /deliveries`. */
export const ListDeliveriesQuery = z.object({
  state: stateFilter,
  subscriptionId: z.string().optional(),
  messageId: z.string().optional(),
  limit: pageLimit.optional(),
  cursor: pageCursor,
});

/** Headers of `POST /events`. */
export const PublishHeaders = z.object({
  "idempotency-key": z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, {
      error: `Idempotency-Key must be one value of ${IDEMPOTENCY_KEY_RULE}.`,
    })
    .optional()
    .meta({
      description:
        "The same key returns the same message (and its fan-out count) instead of publishing twice. One header line only: a repeated Idempotency-Key is refused with 400.",
    }),
});

// --- request bodies -------------------------------------------------------------------------------------------

/**
 * A target's rate limit (attempts started per second): only its JSON type is checked here; the store judges the
 * range and says which rule a value breaks.
 */
export const rateLimitField = (description: string) =>
  z
    .number({ error: "rateLimit must be a number of events per second, or null for none." })
    .nullable()
    .meta({ description });

/**
 * A target's extra headers: only their JSON type is checked here; core's rule (`targetHeadersProblem`, applied by
 * the store) refuses the headers a delivery sets itself and names the one refused.
 */
export const targetHeadersField = (description: string) =>
  z
    .record(z.string(), z.string(), { error: "headers must be an object of header names to string values." })
    .nullable()
    .meta({ description });

const subscriptionRateLimit = rateLimitField(
  "Most deliveries started per second to this subscription, across every sender on the database; null = none.",
);
const subscriptionHeaders = targetHeadersField(
  "Added to every delivery; replaces the whole set (null or {} = none). Never the webhook-*, content-type, host, authorization (the bearer token) or framing headers.",
);

/** Body of `POST /subscriptions`. */
export const SubscriptionInput = z
  .object({
    url: targetUrl(URL_REQUIRED),
    token: bearerToken("token")
      .optional()
      .meta({ description: "Bearer token the receiver accepts; generated when omitted." }),
    secret: signingSecret("secret")
      .optional()
      .meta({ description: "`whsec_` signing secret; generated when omitted." }),
    eventTypes: eventTypesField.optional(),
    signing: signing.optional().meta({ description: "Default symmetric." }),
    application: z.string().optional().meta({
      description:
        "The application it belongs to (id `app_…` or uid); default the default application. A portal token's own application, always.",
    }),
    uid: subscriptionUid.optional(),
    description: description.optional(),
    metadata: metadata.optional(),
    rateLimit: subscriptionRateLimit.optional(),
    headers: subscriptionHeaders.optional(),
  })
  .meta({ id: "SubscriptionInput" });

/** Body of `PATCH /subscriptions/{id}`: the fields to change. */
export const SubscriptionUpdate = z
  .object({
    url: targetUrl("url must be the receiver's http(s) endpoint.").optional(),
    eventTypes: eventTypesField.optional(),
    signing: signing.optional(),
    uid: subscriptionUid.nullable().optional(),
    description: description.optional(),
    metadata: metadata.optional(),
    rateLimit: subscriptionRateLimit.optional(),
    headers: subscriptionHeaders.optional(),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    error:
      "Send the fields to change: { url, eventTypes, signing, uid, description, metadata, rateLimit, headers }.",
  });

/** Body of `POST /subscriptions/{id}/disable` (optional). */
export const DisableInput = z.object({
  reason: z
    .string({ error: REASON_RULE })
    .min(1, { error: REASON_RULE })
    .max(MAX_DISABLE_REASON_LENGTH, { error: REASON_RULE })
    .optional()
    .meta({ description: "Why (shown with the subscription)." }),
});

/** Body of `POST /subscriptions/{id}/rotate`: a token, or a secret with its grace. */
export const RotateInput = z
  .discriminatedUnion(
    "kind",
    [
      z.object({
        kind: z.literal("token"),
        value: bearerToken("value")
          .optional()
          .meta({ description: "The new token; generated when omitted." }),
        graceSeconds: z
          .never({
            error:
              "graceSeconds applies to secrets only: a new token replaces the old one at once (configure the receiver to accept both first).",
          })
          .optional(),
      }),
      z.object({
        kind: z.literal("secret"),
        value: signingSecret("value")
          .optional()
          .meta({ description: "The new secret; generated when omitted." }),
        graceSeconds: z
          .int({ error: GRACE_RULE })
          .min(0, { error: GRACE_RULE })
          .max(MAX_GRACE_SECONDS, { error: GRACE_RULE })
          .default(DEFAULT_GRACE_MS / 1000)
          .meta({ description: "How long the previous secret keeps signing (at most 7 days)." }),
      }),
    ],
    { error: 'kind must be "token" or "secret".' },
  )
  .meta({ id: "RotateInput" });

/** Body of `POST /subscriptions/{id}/recover`. */
export const RecoverInput = z.object({
  since: sinceDateTime.meta({
    format: "date-time",
    description: "RFC 3339, e.g. 2026-11-22T10:00:00Z: failed deliveries created at or after it.",
  }),
});

/**
 * Body of `POST /events`: the event's JSON text, kept as received (the sender relays bytes; int64 ids stay exact),
 * validated by the store against the spec. The one place that says what an event body is.
 */
export const PublishBody = documentedAs(z.string(), newPlantRef);

/** One event of `POST /events/batch`: what `POST /events` takes in its body, query and header. */
export const BatchEventInput = z
  .strictObject({
    payload: documentedAs(
      z.custom<Record<string, unknown>>((value) => value !== undefined, {
        error: "payload is required: the event's JSON.",
      }),
      {
        ...newPlantRef,
        description: "The event (New Plant unless `type` says otherwise), validated by the store.",
      },
    ),
    type: eventType.optional().meta({ description: "The event type (operationId); default newPlant." }),
    idempotencyKey: z
      .string()
      .regex(IDEMPOTENCY_KEY_PATTERN, { error: `idempotencyKey must be ${IDEMPOTENCY_KEY_RULE}.` })
      .optional()
      .meta({
        description:
          "As the Idempotency-Key header of POST /events: a key stored before (or used earlier in the batch) for the same event answers with that message, `duplicate: true`.",
      }),
  })
  .meta({ id: "BatchEvent" });

/**
 * Body of `POST /events/batch`: 1 to `MAX_BATCH_EVENTS` events, stored all or nothing. Parsed losslessly (int64
 * ids stay exact); each payload is stored as core serializes it.
 */
export const PublishBatchInput = z
  .strictObject({
    events: z
      .array(BatchEventInput)
      .min(1, { error: "events must hold at least one event." })
      .max(MAX_BATCH_EVENTS, { error: `A batch holds at most ${MAX_BATCH_EVENTS} events; split it.` }),
  })
  .meta({ id: "PublishBatch" });

/** Query of `POST /events`: which webhook of the contract the body is. */
export const PublishQuery = z.object({
  application: z.string().optional().meta({
    description:
      "Publish to this application only (its id `app_…` or uid): only its subscriptions get the event, and the Idempotency-Key is its own. Default: every application.",
  }),
  type: eventType.optional().meta({
    description:
      "The event type (operationId) the body is, e.g. plantSold; default newPlant. The body must match that webhook's schema.",
  }),
});

// --- answers --------------------------------------------------------------------------------------------------

/** Every error: `{ error, message }`. */
/** One refused part of a request: where (a JSON pointer into the body) and why. */
export const Problem = z
  .object({
    pointer: z
      .string()
      .meta({ description: "JSON pointer into the request body, e.g. /events/3/payload/name." }),
    index: z.int().optional().meta({ description: "For a batch: the index of the refused event." }),
    message: z.string(),
  })
  .meta({ id: "Problem" });

export const ErrorBody = z
  .object({
    error: z.int(),
    message: z.string(),
    problems: z.array(Problem).optional().meta({
      description:
        "On a 422 of POST /events/batch: every refused part, by JSON pointer (nothing was stored).",
    }),
  })
  .meta({ id: "Error" });

/**
 * A page of `item`s, newest first or in creation order: `nextCursor` is the next page's `cursor`, null on the last.
 *
 * @example
 * ```ts
 * const DeliveryPage = pageOf(Delivery);
 * ```
 */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** How many secrets sign a target right now (a subscription, a destination). */
export const signingSecretCount = z
  .int()
  .meta({ description: "How many secrets sign right now (more than 1 during a rotation)." });

/** A subscription (its credentials are never shown again after creation or rotation). */
export const Subscription = z
  .object({
    id: z.string(),
    applicationId: z.string().meta({ description: "The application it belongs to (`app_…`)." }),
    uid: z.string().nullable(),
    description: z.string(),
    metadata: z.record(z.string(), z.string()),
    url: z.string(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable(),
    disabledAt: nullableDateTime,
    failingSince: nullableDateTime,
    signingSecrets: signingSecretCount,
    eventTypes: z
      .array(z.string())
      .nullable()
      .meta({ description: "The event types it receives; null = every type." }),
    signing,
    rateLimit: z
      .number()
      .nullable()
      .meta({ description: "Most deliveries started per second, across every sender; null = none." }),
    headerNames: z.array(z.string()).meta({
      description: "The names of the headers added to every delivery (their values are not shown).",
    }),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "Subscription" });

/** What a delete answers (as Stripe's API does): the id, and that it is gone. */
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: "Deleted" });

/** A new subscription, with its credentials shown once. */
export const SubscriptionWithCredentials = Subscription.extend({
  token: z.string(),
  secret: z.string(),
}).meta({ id: "SubscriptionWithCredentials" });

/** A page of subscriptions (all of them: `nextCursor` is always null today). */
export const SubscriptionPage = pageOf(Subscription);

/** The new credential of a rotation, shown once. */
export const Rotated = z.union([z.object({ token: z.string() }), z.object({ secret: z.string() })]);

/** How many failed deliveries a recover requeued. */
export const Recovered = z.object({ requeued: z.int() });

/** A publish's outcome. */
export const Published = z
  .object({
    messageId: z.string(),
    deliveries: z.int().meta({
      description: "Deliveries the message fanned out to (for a duplicate, those of the original publish).",
    }),
    duplicate: z.boolean(),
  })
  .meta({ id: "Published" });

/** The answer of `POST /events/batch`: one `Published` per event, in the order sent. */
export const PublishedBatch = z.object({ data: z.array(Published) }).meta({ id: "PublishedBatch" });

/** A published message and its payload exactly as published. */
export const Message = z
  .object({
    id: z.string(),
    idempotencyKey: z.string().nullable(),
    eventType: z.string().meta({ description: "The event type (operationId) of the payload." }),
    createdAt: dateTime,
    payload: documentedAs(z.custom<NewPlant>(), newPlantRef),
  })
  .meta({ id: "Message" });

/** Where one message to one target stands (a delivery's fields after its ids; a forward's too). */
export const deliveryProgress = {
  state: z.enum(DELIVERY_STATES),
  attempts: z.int(),
  dueAt: dateTime,
  lastStatus: z.int().nullable(),
  lastError: z.string().nullable(),
  createdAt: dateTime,
  updatedAt: dateTime,
  finishedAt: nullableDateTime,
};

/** One message to one subscription. */
export const Delivery = z
  .object({ id: z.int(), messageId: z.string(), subscriptionId: z.string(), ...deliveryProgress })
  .meta({ id: "Delivery" });

/** A page of deliveries, newest first. */
export const DeliveryPage = pageOf(Delivery);

/** One attempt of a delivery. */
export const Attempt = z
  .object({
    attempt: z.int().meta({
      description: "1-based number in the delivery's whole history (a resend continues the count).",
    }),
    attemptedAt: dateTime,
    status: z.int().nullable(),
    latencyMs: z.int(),
    responseBody: z.string().nullable().meta({ description: "The first 4 KiB of the response." }),
    error: z.string().nullable(),
  })
  .meta({ id: "Attempt" });

/** Every attempt of a delivery, oldest first. */
export const AttemptList = z.object({ data: z.array(Attempt) });

/** One webhook of the document the app runs with: an entry of `@plant-store/spec`'s catalog, as it is. */
export const EventType = z
  .object({
    type: z.string().meta({ description: "The event type: the webhook's operationId (e.g. plantSold)." }),
    name: z.string().meta({ description: "A human name: the operation's summary, else its type." }),
    path: z.string().meta({ description: "The path a receiver serves it at (the key under `webhooks`)." }),
    method: z.string(),
    operationId: z.string(),
    summary: z.string().optional(),
    description: z.string().optional(),
    schema: z
      .union([z.record(z.string(), z.unknown()), z.boolean()])
      .meta({ description: "The request body's JSON Schema, every $ref resolved." }),
    examples: z
      .array(z.object({ name: z.string(), summary: z.string().optional(), value: z.unknown() }))
      .readonly(),
    responses: z.record(
      z.string(),
      z.object({
        description: z.string(),
        schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]).optional(),
      }),
    ),
  })
  .meta({ id: "EventType" });

/** `GET /event-types`: every webhook of the document, in its order. */
export const EventTypeList = z.object({ data: z.array(EventType) });

/** `GET /healthz`. */
export const Health = z.object({ status: z.literal("ok") });

/** `GET /readyz`. */
export const Ready = z.object({ status: z.literal("ready"), backend: z.enum(["sqlite", "postgres"]) });

/** `GET /metrics`: Prometheus text. */
export const MetricsText = z.string();

/** `GET /openapi.json`: this API's document. */
export const OpenApiDocument = z.record(z.string(), z.unknown());
