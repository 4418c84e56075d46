import { SOURCES } from "../sources.js";
import type { CheckInfo } from "../types.js";

/** The sender checks: per-delivery ones are judged as each delivery arrives, the rest over the whole run. */
export const senderChecks = {
  headers: {
    id: "sender.headers",
    title: "Every delivery carries well-formed webhook-id, webhook-timestamp and webhook-signature",
    level: "MUST",
    source: SOURCES.swHeaders,
    why: "Receivers verify, deduplicate and refuse replays with these three headers.",
    fix: "Send webhook-id (1–256 visible ASCII), webhook-timestamp (integer unix seconds) and webhook-signature (`v1,<base64>` entries) on every attempt.",
  },
  signature: {
    id: "sender.signature",
    title: "Every signature verifies over the exact body bytes sent",
    level: "MUST",
    source: SOURCES.swSignatureScheme,
    why: "A signature over anything but the bytes on the wire (a re-serialized body, another encoding) fails every careful receiver.",
    fix: "Sign `id.timestamp.body` over the exact bytes you send, after serializing once, with the endpoint's secret.",
  },
  timestamp: {
    id: "sender.timestamp-fresh",
    title: "Every attempt's timestamp is the time of that attempt",
    level: "MUST",
    source: SOURCES.swMetadata,
    why: "Receivers refuse timestamps outside their tolerance; a retry that reuses the first attempt's timestamp is refused.",
    fix: "Set webhook-timestamp (and sign it) anew on every attempt.",
  },
  contentType: {
    id: "sender.content-type",
    title: "Every delivery is sent as application/json",
    level: "MUST",
    source: SOURCES.specPayload,
    why: "The contract's request body is application/json; receivers refuse other media types with 415.",
    fix: "Send `content-type: application/json`.",
  },
  bearer: {
    id: "sender.bearer",
    title: "Every delivery carries the endpoint's bearer token",
    level: "MUST",
    source: SOURCES.specSecurity,
    why: "The document puts every webhook under bearerAuth; receivers answer 401 without it.",
    fix: "Send `Authorization: Bearer <token>` with the token configured for the endpoint.",
  },
  payload: {
    id: "sender.payload",
    title: "Every payload is valid against its webhook's schema",
    level: "MUST",
    source: SOURCES.specPayload,
    why: "Receivers validate events and answer 422 to an invalid one, which no retry fixes.",
    fix: "Validate events against the document's schema before publishing them.",
  },
  idsUnique: {
    id: "sender.ids-unique",
    title: "No webhook-id is used for two different events",
    level: "MUST",
    source: SOURCES.swMetadata,
    why: "Receivers deduplicate on webhook-id: a reused id makes them drop a new event as a duplicate.",
    fix: "Give every event its own id (a ULID or UUID) when it is created, and keep it for its retries only.",
  },
  idStable: {
    id: "sender.id-stable",
    title: "A retry carries the same webhook-id and body as the first attempt",
    level: "MUST",
    source: SOURCES.swMetadata,
    why: "An id that changes on retry defeats deduplication: the receiver processes the event twice.",
    fix: "Store the event's id and bytes with the event and send both unchanged on every attempt.",
  },
  retries: {
    id: "sender.retries",
    title: "A delivery answered 500 is retried",
    level: "MUST",
    source: SOURCES.swReliability,
    why: "A receiver's transient failure must not lose the event.",
    fix: "Treat any non-2xx answer as a failure and retry on a backoff schedule (Standard Webhooks: 5 s, 5 min, 30 min, …).",
  },
  retryAfter: {
    id: "sender.retry-after",
    title: "A 503 with Retry-After is retried no sooner than asked",
    level: "SHOULD",
    source: SOURCES.swSuccess,
    why: "A receiver under load asks for room with Retry-After; retrying sooner adds to the load.",
    fix: "Read Retry-After (seconds or an HTTP date) on 429 and 5xx answers and schedule the next attempt no earlier.",
  },
  gone: {
    id: "sender.gone-stops",
    title: "An endpoint that answered 410 receives nothing more",
    level: "MUST",
    source: SOURCES.swSuccess,
    why: "410 Gone says the receiver is no longer interested; further deliveries are unwanted traffic.",
    fix: "On 410, disable the endpoint and stop delivering to it (retries and new events alike).",
  },
} as const satisfies Record<string, CheckInfo>;

export type SenderCheckKey = keyof typeof senderChecks;
