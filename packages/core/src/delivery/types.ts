import type { SigningScheme } from "./outbox-rules.js";
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
  /**
   * Sent as `Authorization: Bearer <token>`; never appears in an outcome. `null` or absent: no `Authorization`
   * (a receiver's destination, whose own credentials travel in `headers`).
   */
  token?: string | null | undefined;
  /**
   * Headers added to every attempt (e.g. an internal service's own credential), never one of
   * `REFUSED_TARGET_HEADERS`; their values never appear in an outcome.
   */
  headers?: Readonly<Record<string, string>> | null | undefined;
  /** `whsec_` secrets; one `v1,` signature per secret. */
  secrets: readonly string[];
  /** `whsk_` ed25519 private keys; one `v1a,` signature per key, after the `v1` ones. Default none. */
  privateKeys?: readonly string[] | undefined;
  /**
   * The scheme the target was set up to verify. With `asymmetric` or `both` and no `privateKeys`, nothing is sent
   * (a `failed` outcome, `unusable_target`): the target would get a request without the v1a signature it checks.
   * Absent: sign with whatever `secrets` and `privateKeys` hold.
   */
  signing?: SigningScheme | undefined;
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
  /** Sent as `webhook-event-type`: the catalog type of the event (its operationId). Default `newPlant`. */
  eventType?: string | undefined;
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
  /** Default `globalThis.fetch`. Ignored when `transport` is given. */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Sends the request instead of `fetch`: for HTTP clients cheaper than WHATWG fetch (the sender passes one
   * built on undici's `request`, pinned to the address its SSRF guard checked).
   */
  transport?: Transport | undefined;
  /** Clock in milliseconds; signs `webhook-timestamp` and measures latency. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Whole attempt, response headers and the kept body included. Default 15 000 ms. */
  timeoutMs?: number | undefined;
  /** Default `plant-store/<version>`. */
  userAgent?: string | undefined;
  /** Response bytes kept in `responseBody`; the rest is never read. Default 4096. */
  maxResponseBytes?: number | undefined;
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
 * Why an attempt came to its kind, as a value to branch on (never its `error` text): `status`, a response arrived
 * and its status decided; `timeout`, none arrived within `timeoutMs`; `network`, the exchange failed (refused,
 * reset, a name that did not resolve); `blocked_address`, the transport's SSRF guard refused the address (its error
 * carried `BLOCKED_ADDRESS_CODE`); `unusable_target`, nothing was sent because the target or message cannot be
 * (an invalid URL, token, secret, key, message id or event type).
 *
 * @example
 * ```ts
 * if (outcome.reason === "blocked_address") metrics.blocked.inc();
 * ```
 */
export type OutcomeReason = "status" | "timeout" | "network" | "blocked_address" | "unusable_target";

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
  /** Why: set on every outcome `deliver` returns (optional so that outcomes built elsewhere still type-check). */
  reason?: OutcomeReason | undefined;
  /** The response status, when a response arrived. */
  status?: number | undefined;
  latencyMs: number;
  /** Unix seconds signed into this attempt (`webhook-timestamp`). */
  timestamp: number;
  /** At most `maxResponseBytes` of the response, decoded as UTF-8. */
  responseBody?: string | undefined;
  /** From `Retry-After` on 429/502/503/504, relative to the attempt's clock. */
  retryAfterMs?: number | undefined;
  /** Why the attempt did not deliver; never contains the token or a secret. */
  error?: string | undefined;
  /**
   * When a `retry` is attempted again (ms since the epoch): set by `settleOutcome`, never by
   * `deliver`. The outbox records a `retry` as due at this time (due at once without one).
   */
  retryAt?: number | undefined;
}

/**
 * The request `deliver` hands to a {@link Transport}: send it as is (no redirects followed), and end the exchange
 * when the attempt's time is up — either by honouring `signal`, or by enforcing `timeoutMs` itself.
 *
 * @example
 * ```ts
 * const request: TransportRequest = { url: "https://plants.example.com/plant/webhook", method: "POST",
 *   headers: { "content-type": "application/json" }, body: '{"id":1,"name":"Fern"}', signal, timeoutMs: 15_000,
 *   maxResponseBytes: 4096 };
 * ```
 */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /**
   * Aborted when the attempt times out; the transport must then stop and reject (or fail `readBody`). Created on
   * first read: an AbortController per attempt is a measurable share of a fast transport's cost, so a transport
   * that enforces `timeoutMs` itself need never read it.
   */
  readonly signal: AbortSignal;
  /**
   * The attempt's whole budget in ms, response body included, counted from the call. A transport enforcing it
   * itself rejects (or fails `readBody`) with an error named `TimeoutError`.
   */
  timeoutMs: number;
  /** How much of the response `readBody` may return. */
  maxResponseBytes: number;
}

/**
 * What a {@link Transport} answers: the status, a header lookup and the body, read on demand. `deliver` always
 * calls `readBody` once, so the transport can release the connection afterwards.
 *
 * @example
 * ```ts
 * const response: TransportResponse = { status: 200, headers: { get: () => null }, readBody: async () => "" };
 * ```
 */
export interface TransportResponse {
  status: number;
  /** `"opaqueredirect"` from a browser fetch with `redirect: "manual"` (status 0); otherwise omitted. */
  type?: string | undefined;
  headers: { get(name: string): string | null };
  /** At most `maxResponseBytes` of the body, decoded as UTF-8; the rest is discarded, never buffered. */
  readBody(): Promise<string>;
}

/**
 * One HTTP exchange for `deliver`. Rejections become `retry` outcomes (or `failed` when the error, or one of its
 * causes, has the code `BLOCKED_ADDRESS_CODE`).
 *
 * @example
 * ```ts
 * import { request } from "undici";
 * import { readCappedChunks, type Transport } from "@plant-store/core";
 * const transport: Transport = async (r) => {
 *   const res = await request(r.url, { method: "POST", headers: r.headers, body: r.body, signal: r.signal });
 *   const header = (name: string) => [res.headers[name]].flat()[0] ?? null;
 *   return { status: res.statusCode, headers: { get: header },
 *     readBody: () => readCappedChunks(res.body[Symbol.asyncIterator](), r.maxResponseBytes) };
 * };
 * ```
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;
