import {
  DEFAULT_GRACE_MS,
  DELIVERY_STATES,
  EVENT_TYPE_PATTERN,
  IDEMPOTENCY_KEY_RULE,
  isDeliveryState,
  isIdempotencyKey,
  MAX_GRACE_MS,
} from "@plant-store/core";
import { StoreInputError } from "../errors.js";

/** Checks a subscription URL: absolute http(s), no credentials (those belong in the token). */
export function checkUrl(url: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === "string" ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new StoreInputError("invalid_url", "The subscription url must be an absolute http(s) URL.");
  }
  if (parsed.username || parsed.password) {
    throw new StoreInputError(
      "invalid_url",
      "The subscription url must not contain credentials; pass them as the token so they are encrypted.",
    );
  }
  return parsed.href;
}

/** A non-empty header-safe value (no whitespace or control characters); the message never echoes it. */
export function checkCredential(value: unknown, what: "token" | "secret"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 4096 || /[\s\p{Cc}]/u.test(value)) {
    throw new StoreInputError(
      `invalid_${what}`,
      `The ${what} must be a non-empty string without spaces or control characters.`,
    );
  }
  return value;
}

/** A non-empty printable id of at most 256 characters (webhook ids, idempotency keys, worker ids). */
export function checkKey(value: unknown, what: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 256 || /\p{Cc}/u.test(value)) {
    throw new StoreInputError(
      `invalid_${what.replaceAll(" ", "_")}`,
      `The ${what} must be 1 to 256 printable characters.`,
    );
  }
  return value;
}

/**
 * The filters of `listDeliveries`, checked: each absent or a string (a state one of the four), so a JavaScript
 * caller passing an array (`?subscriptionId=a&subscriptionId=b` parsed naively) gets `invalid_argument`, not a
 * driver error.
 */
export function checkDeliveryFilters(options: {
  messageId?: unknown;
  subscriptionId?: unknown;
  state?: unknown;
}): [column: "message_id" | "subscription_id" | "state", value: string][] {
  const filters: [column: "message_id" | "subscription_id" | "state", value: string][] = [];
  for (const [column, name, value] of [
    ["message_id", "messageId", options.messageId],
    ["subscription_id", "subscriptionId", options.subscriptionId],
    ["state", "state", options.state],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== "string" || (name === "state" && !isDeliveryState(value))) {
      throw new StoreInputError(
        "invalid_argument",
        name === "state"
          ? `state must be one of ${DELIVERY_STATES.join(", ")}.`
          : `${name} must be a string (one id).`,
      );
    }
    filters.push([column, value]);
  }
  return filters;
}

/**
 * An inbox body as its own copy of the bytes (the caller may reuse its buffer before the batch is written): a
 * string (UTF-8) or a Uint8Array (Buffer included); anything else is `invalid_body`.
 */
export function copyBody(value: unknown): Buffer {
  if (typeof value === "string") return Buffer.from(value, "utf8");
  if (value instanceof Uint8Array) return Buffer.from(value);
  throw new StoreInputError(
    "invalid_body",
    "The body must be a string or a Uint8Array (Buffer), the exact bytes received.",
  );
}

/** A positive safe integer. */
export function checkPositiveInt(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new StoreInputError(
      `invalid_${what.replaceAll(" ", "_")}`,
      `The ${what} must be a positive integer.`,
    );
  }
  return value;
}

/**
 * An idempotency key: the rule of `@plant-store/core` ({@link IDEMPOTENCY_KEY_RULE}), the same the sender's admin
 * API and the CLI apply to the `Idempotency-Key` header.
 */
export function checkIdempotencyKey(value: unknown): string {
  if (!isIdempotencyKey(value)) {
    throw new StoreInputError(
      "invalid_idempotency_key",
      `The idempotency key must be ${IDEMPOTENCY_KEY_RULE}.`,
    );
  }
  return value;
}

const TRACE_FIELDS = 16;
const TRACE_NAME = /^[\x21-\x7e]{1,64}$/;
const TRACE_BYTES = 4096;

/**
 * A publish's trace context as the JSON text stored with the message, or `null` when there is none (omitted, or
 * nothing injected: no tracer is installed). It must be a plain object of at most 16 string fields with header-like
 * names, at most 4 KiB as JSON: the carrier a propagator writes, never arbitrary data riding along with every claim.
 *
 * @example
 * ```ts
 * checkTraceContext({ traceparent: "00-…-01" }); // '{"traceparent":"00-…-01"}'
 * checkTraceContext({}); // null
 * ```
 */
export function checkTraceContext(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = traceContextText(value);
  if (text === false) {
    throw new StoreInputError(
      "invalid_trace_context",
      `The trace context must be an object of at most ${TRACE_FIELDS} text fields (traceparent, tracestate), at most ${TRACE_BYTES} bytes as JSON.`,
    );
  }
  return text;
}

/**
 * Whether `publish({ traceContext })` takes this carrier (see {@link checkTraceContext}): a publisher asks before it
 * publishes, so tracing never refuses an event (the sender then keeps only `traceparent`).
 *
 * @example
 * ```ts
 * isStorableTraceContext({ traceparent: "00-…-01", tracestate: "x".repeat(5000) }); // false
 * ```
 */
export function isStorableTraceContext(value: unknown): boolean {
  return value === undefined || value === null || traceContextText(value) !== false;
}

/** The carrier as stored JSON, `null` when empty, `false` when the store refuses it. */
function traceContextText(value: unknown): string | null | false {
  // A plain object (or one without a prototype): what `propagation.inject` writes into `{}`.
  const proto = typeof value === "object" && value !== null ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return false;
  const entries = Object.entries(value as object);
  if (entries.length === 0) return null;
  if (entries.length > TRACE_FIELDS) return false;
  for (const [name, field] of entries) {
    if (!TRACE_NAME.test(name) || typeof field !== "string" || /\p{Cc}/u.test(field)) return false;
  }
  const text = JSON.stringify(value);
  return Buffer.byteLength(text) > TRACE_BYTES ? false : text;
}

/** A secret rotation's grace in ms: default one day, at most {@link MAX_GRACE_MS}. */
export function checkGraceMs(value: number | undefined): number {
  const graceMs = value ?? DEFAULT_GRACE_MS;
  if (!(Number.isFinite(graceMs) && graceMs >= 0 && graceMs <= MAX_GRACE_MS)) {
    throw new StoreInputError("invalid_grace", `graceMs must be 0 to 7 days (${MAX_GRACE_MS} ms).`);
  }
  return graceMs;
}

const isEventType = (value: unknown): value is string =>
  typeof value === "string" && EVENT_TYPE_PATTERN.test(value);

/**
 * An event type: 1 to 100 visible ASCII characters (core's `EVENT_TYPE_PATTERN`, as it travels in a header); `undefined` is the default type.
 *
 * @example
 * ```ts
 * checkEventType(undefined, "newPlant"); // "newPlant"
 * checkEventType("", "newPlant"); // throws StoreInputError (invalid_event_type)
 * ```
 */
export function checkEventType(value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (!isEventType(value)) {
    throw new StoreInputError(
      "invalid_event_type",
      'The event type must be 1 to 100 visible ASCII characters, e.g. "newPlant".',
    );
  }
  return value;
}

/**
 * A subscription's event type filter: `null` (every type) or a non-empty list of distinct event types.
 *
 * @example
 * ```ts
 * checkEventTypes(["newPlant"]); // ["newPlant"]
 * checkEventTypes([]); // throws StoreInputError (invalid_event_types)
 * ```
 */
export function checkEventTypes(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  const problem = !Array.isArray(value)
    ? "must be an array of event types, or null for every type"
    : value.length === 0
      ? "must not be empty (use null for every event type)"
      : !value.every(isEventType)
        ? "must hold event types of 1 to 100 visible ASCII characters"
        : new Set(value).size !== value.length
          ? "must not name an event type twice"
          : undefined;
  if (problem) throw new StoreInputError("invalid_event_types", `eventTypes ${problem}, e.g. ["newPlant"].`);
  return [...(value as string[])];
}
