/**
 * Where one subscription's deliveries go.
 *
 * @example
 * ```ts
 * const target: DeliveryTarget = {
 *   url: "https://plants.example.com/plant/webhook",
 *   token: "psk_…",
 *   secrets: ["whsec_…"], // several during rotation; empty sends no webhook-signature
 * };
 * ```
 */
export interface DeliveryTarget {
  url: string;
  /** Sent as `Authorization: Bearer <token>`; never appears in an outcome. */
  token: string;
  /** `whsec_` secrets; one `v1,` signature per secret. */
  secrets: readonly string[];
}

/**
 * One message: its id (stable across retries) and the exact bytes to send.
 *
 * @example
 * ```ts
 * const message: OutgoingMessage = { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body: '{"id":1,"name":"Monstera"}' };
 * ```
 */
export interface OutgoingMessage {
  id: string;
  /** Sent as is: a string is encoded as UTF-8, bytes are never re-serialized. */
  body: string | Uint8Array;
}

/**
 * Options of `deliver`; every dependency is injectable.
 *
 * @example
 * ```ts
 * const options: DeliverOptions = { timeoutMs: 5_000, now: () => clock.now() };
 * ```
 */
export interface DeliverOptions {
  /** Default `globalThis.fetch`. The sender passes one pinned to an address its SSRF guard resolved. */
  fetch?: typeof globalThis.fetch;
  /** Clock in milliseconds; signs `webhook-timestamp` and measures latency. Default `Date.now`. */
  now?: () => number;
  /** Whole attempt, response headers and the kept body included. Default 15 000 ms. */
  timeoutMs?: number;
  /** Default `plant-store/<version>`. */
  userAgent?: string;
  /** Response bytes kept in `responseBody`; the rest is never read. Default 4096. */
  maxResponseBytes?: number;
}

/**
 * What an attempt came to: `delivered` (2xx), `gone` (410: disable the subscription), `retry`
 * (anything transient), `failed` (the target itself is unusable; retrying cannot help).
 *
 * @example
 * ```ts
 * const final: OutcomeKind[] = ["delivered", "gone", "failed"];
 * ```
 */
export type OutcomeKind = "delivered" | "retry" | "gone" | "failed";

/**
 * The record of one attempt, ready to be logged and fed to `nextAttempt`.
 *
 * @example
 * ```ts
 * const outcome: DeliveryOutcome = { kind: "retry", status: 503, latencyMs: 12, timestamp: 1732077903, retryAfterMs: 30_000 };
 * ```
 */
export interface DeliveryOutcome {
  kind: OutcomeKind;
  /** The response status, when a response arrived. */
  status?: number;
  latencyMs: number;
  /** Unix seconds signed into this attempt (`webhook-timestamp`). */
  timestamp: number;
  /** At most `maxResponseBytes` of the response, decoded as UTF-8. */
  responseBody?: string;
  /** From `Retry-After` on 429/502/503/504, relative to the attempt's clock. */
  retryAfterMs?: number;
  /** Why the attempt did not deliver; never contains the token or a secret. */
  error?: string;
}
