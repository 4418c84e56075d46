/**
 * The rules of the outbox that the store enforces, the sender's admin API validates and documents, and the CLI
 * checks before sending: written once here and imported by all three.
 *
 * @module
 */

/** The states of a delivery (one message to one subscription), in lifecycle order. */
export const DELIVERY_STATES = ["pending", "leased", "delivered", "failed"] as const;

/** A delivery's state: `pending` (due or waiting for a retry), `leased` (being attempted), `delivered`, `failed`. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * Whether `value` is a delivery state.
 *
 * @example
 * ```ts
 * isDeliveryState("failed"); // true
 * isDeliveryState("lost"); // false
 * ```
 */
export function isDeliveryState(value: unknown): value is DeliveryState {
  return typeof value === "string" && (DELIVERY_STATES as readonly string[]).includes(value);
}

/** The longest idempotency key (as Stripe's). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * What an idempotency key is, as a pattern: 1 to 255 visible ASCII characters, spaces only inside. It travels in an
 * HTTP header (`Idempotency-Key`), where other bytes are not portable and outer spaces are trimmed away.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** The idempotency key rule in words, for error messages. */
export const IDEMPOTENCY_KEY_RULE = `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (spaces only inside)`;

/**
 * Whether `value` is a valid idempotency key ({@link IDEMPOTENCY_KEY_RULE}).
 *
 * @example
 * ```ts
 * isIdempotencyKey("order-42"); // true
 * isIdempotencyKey(" padded "); // false
 * ```
 */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === "string" && IDEMPOTENCY_KEY_PATTERN.test(value);
}

const DAY_MS = 24 * 3600_000;

/** The longest grace of a secret rotation, 7 days (Stripe's maximum too): an old secret must stop signing at a real time. */
export const MAX_GRACE_MS = 7 * DAY_MS;

/** The grace of a secret rotation when none is given: one day. */
export const DEFAULT_GRACE_MS = DAY_MS;

/** The longest reason a subscription is disabled with. */
export const MAX_DISABLE_REASON_LENGTH = 1000;

/** The reason recorded when an operator disables a subscription without giving one. */
export const DEFAULT_DISABLE_REASON = "Disabled by an operator.";

/**
 * Why a delivery failed and its subscription was disabled when its endpoint answered 410 Gone: the outbox records
 * both in one transaction.
 */
export const GONE_REASON = "The endpoint answered 410 Gone.";

/**
 * The error a delivery fails with when the attempt that ended it gave none: its status.
 *
 * @example
 * ```ts
 * failureReason({ status: 500 }); // "status 500"
 * failureReason({ status: 503, error: "timed out" }); // "timed out"
 * ```
 */
export function failureReason(outcome: {
  status?: number | null | undefined;
  error?: string | null | undefined;
}): string | null {
  return outcome.error ?? (outcome.status == null ? null : `status ${outcome.status}`);
}

/**
 * The most events one batch publish (`outbox.publishMany`, the admin API's `POST /events/batch`) takes: the store
 * refuses more, and a client splits a larger set into batches of at most this many.
 */
export const MAX_BATCH_EVENTS = 1000;

/** Page sizes of every list (deliveries, inbox events): `limit` is 1 to `max`, `default` when not given. */
export const PAGE_SIZE = { default: 50, max: 1000 } as const;

/** How a subscription's deliveries are signed: v1 (HMAC, `whsec_`), v1a (ed25519, `whsk_`), or both while migrating. */
export const SIGNING_SCHEMES = ["symmetric", "asymmetric", "both"] as const;

/** One of {@link SIGNING_SCHEMES}. */
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

/**
 * Which keys a signing scheme signs with: `secrets` (the subscription's `whsec_`, v1) unless `asymmetric`, `keys`
 * (the sender's `whsk_`, v1a) unless `symmetric`.
 *
 * @example
 * ```ts
 * signsWith("asymmetric"); // { secrets: false, keys: true }
 * ```
 */
export function signsWith(scheme: SigningScheme): { secrets: boolean; keys: boolean } {
  return { secrets: scheme !== "asymmetric", keys: scheme !== "symmetric" };
}

/** What an event type must be to travel as a header (`webhook-event-type`) and be stored: 1 to 100 visible characters. */
export const EVENT_TYPE_PATTERN = /^[\x21-\x7e]{1,100}$/;

/** A portal link's (and its token's) lifetime when none is asked for: one hour. */
export const PORTAL_TTL_DEFAULT_MS = 3_600_000;

/** The longest a portal link (and its token) may live: one day. */
export const PORTAL_TTL_MAX_MS = DAY_MS;

/** The shortest a portal link may live when one is asked for: one minute. */
export const PORTAL_TTL_MIN_MS = 60_000;

/** What every portal token starts with (admin tokens start with `psk_`): `pst_` and 43 base64url characters. */
export const PORTAL_TOKEN_PREFIX = "pst_";

/** An application's or a subscription's uid: 1 to 100 visible ASCII characters, no spaces. */
export const UID_PATTERN = /^[\x21-\x7e]{1,100}$/;
