import { DEFAULT_EVENT_TYPE, EVENT_TYPE_HEADER, WEBHOOK_HEADERS, WEBHOOK_METHOD } from "@plant-store/spec";
import { functionOption, invalidOption, numberOption, stringOption } from "../options.js";
import { signatureHeader } from "../signing/index.js";
import { idProblem } from "../signing/message-parts.js";
import { VERSION } from "../version.js";
import { checkTarget } from "./check-target.js";
import { type Classification, classifyResponse } from "./classify.js";
import { describeError, isBlockedAddressError, redact } from "./describe-error.js";
import { EVENT_TYPE_PATTERN, signsWith } from "./outbox-rules.js";
import { readCapped } from "./read-capped.js";
import { targetHeadersProblem } from "./target-headers.js";
import type {
  DeliverOptions,
  DeliveryOutcome,
  DeliveryTarget,
  OutcomeReason,
  OutgoingMessage,
  Transport,
  TransportRequest,
  TransportResponse,
} from "./types.js";

/** Default time for one whole attempt. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Default number of response bytes kept for the attempt log. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

// setTimeout's limit: a longer delay fires at once (with a TimeoutOverflowWarning), timing out every attempt.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
const DEFAULT_USER_AGENT = `plant-store/${VERSION}`;
// A header value undici can send: no line breaks or NUL (header injection), nothing beyond Latin-1 (RFC 9110 field
// values are bytes), not empty; tabs and other text are fine.
const HEADER_VALUE = /^(?=.*\S)[^\r\n\0\u0100-\uffff]+$/s;

/**
 * Makes one delivery attempt: `POST` of the exact body bytes with `Authorization: Bearer`, the Standard
 * Webhooks headers (`webhook-id` = `message.id`, `webhook-timestamp` = this attempt, `webhook-signature`
 * with one `v1,` signature per secret, omitted when there is none), `webhook-event-type` = `message.eventType`
 * (default `newPlant`: one URL may receive several event types, and the receiver routes on it) and `user-agent`. Redirects are never
 * followed, the whole attempt is bounded by `timeoutMs`, and at most `maxResponseBytes` of the response
 * are read. Rejects only for invalid options (`PlantStoreError` `invalid_option`: `timeoutMs` 1 to 2^31-1 ms,
 * `maxResponseBytes` an integer ≥ 0, functions for `fetch`/`transport`/`now`, a header-safe `userAgent`); every
 * other problem becomes an outcome whose `error` holds neither token nor secret.
 *
 * - `delivered`: 2xx. `gone`: 410.
 * - `retry`: 3xx, 429/502/503/504 (with `retryAfterMs` from `Retry-After`), any other status, network
 *   errors and timeouts.
 * - `failed`: the target is unusable — invalid or non-http(s) URL, malformed token or secret, a message
 *   id or event type that cannot be a header, or a fetch rejected with code `ERR_PLANT_STORE_BLOCKED_ADDRESS`.
 *
 * @example
 * ```ts
 * import { deliver, nextAttempt } from "@plant-store/core";
 * const outcome = await deliver(
 *   { url: "https://plants.example.com/plant/webhook", token: "psk_…", secrets: ["whsec_…"] },
 *   { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body: '{"id":1,"name":"Monstera"}' },
 * );
 * if (outcome.kind === "retry") console.log(nextAttempt(1, outcome)); // { retry: true, delayMs: 4312 }
 * ```
 */
export async function deliver(
  target: DeliveryTarget,
  message: OutgoingMessage,
  options: DeliverOptions = {},
): Promise<DeliveryOutcome> {
  const settings = attemptSettings(options);
  const sensitive = sensitiveValues(target);
  const timestamp = Math.floor(settings.now() / 1000);
  const prepared = await prepareRequest(target, message, settings, timestamp, sensitive);
  if ("unusable" in prepared) {
    const error = redact(prepared.unusable, sensitive);
    return { kind: "failed", reason: "unusable_target", latencyMs: 0, timestamp, error };
  }
  return send(prepared, settings, timestamp, sensitive);
}

/** What one attempt runs with: `deliver`'s options, checked and defaulted. */
interface AttemptSettings {
  transport: Transport;
  now: () => number;
  timeoutMs: number;
  maxResponseBytes: number;
  userAgent: string;
}

/** Checks `deliver`'s options (throwing `invalid_option`) and fills in the defaults. */
function attemptSettings(options: DeliverOptions): AttemptSettings {
  const transport =
    functionOption<Transport | undefined>("transport", options.transport, undefined) ??
    fetchTransport(functionOption("fetch", options.fetch, globalThis.fetch));
  const now = functionOption("now", options.now, Date.now);
  const timeoutMs = numberOption("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, {
    min: 1,
    max: MAX_TIMEOUT_MS,
    unit: "(milliseconds)",
  });
  const maxResponseBytes = numberOption(
    "maxResponseBytes",
    options.maxResponseBytes,
    DEFAULT_MAX_RESPONSE_BYTES,
    {
      min: 0,
      integer: true,
      unit: "(bytes)",
    },
  );
  const userAgent = stringOption("userAgent", options.userAgent, DEFAULT_USER_AGENT);
  if (!HEADER_VALUE.test(userAgent)) {
    throw invalidOption(
      "userAgent must be a non-empty header value: no line breaks or NUL, and only Latin-1 characters.",
    );
  }
  return { transport, now, timeoutMs, maxResponseBytes, userAgent };
}

/** The target's token, secrets and keys: never written into an outcome. */
function sensitiveValues(target: DeliveryTarget): string[] {
  const secrets: readonly unknown[] = Array.isArray(target.secrets) ? target.secrets : [];
  const keys: readonly unknown[] = Array.isArray(target.privateKeys) ? target.privateKeys : [];
  const added = target.headers ? Object.values(target.headers) : [];
  return [target.token, ...secrets, ...keys, ...added].filter(
    (value): value is string => typeof value === "string",
  );
}

/** A request ready to send: where, with which headers, which bytes. */
interface PreparedRequest {
  href: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

/**
 * Checks the target and the message and builds the signed request, or says why nothing can be sent (the reason
 * becomes a `failed` outcome with reason `unusable_target`).
 */
async function prepareRequest(
  target: DeliveryTarget,
  message: OutgoingMessage,
  settings: AttemptSettings,
  timestamp: number,
  sensitive: readonly string[],
): Promise<PreparedRequest | { unusable: string }> {
  const problem = unsendable(target, message);
  if (typeof problem === "string") return { unusable: problem };
  const eventType = message.eventType ?? DEFAULT_EVENT_TYPE;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": settings.userAgent,
    [WEBHOOK_HEADERS.id]: message.id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [EVENT_TYPE_HEADER]: eventType,
  };
  if (typeof target.token === "string") headers.authorization = `Bearer ${target.token}`;
  // Checked by `unsendable`: none of them is a header the delivery writes.
  if (target.headers)
    for (const name in target.headers) headers[name.toLowerCase()] = target.headers[name] as string;
  const privateKeys = target.privateKeys ?? [];
  if (target.secrets.length > 0 || privateKeys.length > 0) {
    try {
      headers[WEBHOOK_HEADERS.signature] = await signatureHeader({
        secrets: target.secrets,
        privateKeys,
        id: message.id,
        timestamp,
        body: message.body,
      });
    } catch (error) {
      return { unusable: `Cannot sign for this target: ${describeError(error, sensitive)}` };
    }
  }
  return { href: problem.href, headers, body: message.body };
}

/** Why the target or message cannot be sent, or the target's checked URL. */
function unsendable(target: DeliveryTarget, message: OutgoingMessage): string | { href: string } {
  if (!Array.isArray(target.secrets)) {
    return "The target's secrets must be an array of 'whsec_…' strings (empty to send unsigned).";
  }
  const checked = checkTarget(target);
  if (!checked.ok) return checked.reason;
  const idIssue = idProblem(message.id);
  if (idIssue !== null) return `The message id cannot be sent as ${WEBHOOK_HEADERS.id}: ${idIssue}`;
  const eventType = message.eventType ?? DEFAULT_EVENT_TYPE;
  if (typeof eventType !== "string" || !EVENT_TYPE_PATTERN.test(eventType)) {
    return `The message event type must be a non-empty string of visible ASCII to be sent as ${EVENT_TYPE_HEADER}.`;
  }
  if (typeof message.body !== "string" && !(message.body instanceof Uint8Array)) {
    return "The message body must be a string or a Uint8Array holding the exact bytes to send.";
  }
  if (target.headers !== undefined && target.headers !== null) {
    const headersIssue = targetHeadersProblem(target.headers, { bearer: typeof target.token === "string" });
    if (headersIssue !== undefined) return headersIssue;
  }
  if (target.privateKeys !== undefined && !Array.isArray(target.privateKeys)) {
    return "The target's privateKeys must be an array of 'whsk_…' strings.";
  }
  if (
    target.signing !== undefined &&
    signsWith(target.signing).keys &&
    (target.privateKeys ?? []).length === 0
  ) {
    return `The target verifies v1a signatures (signing "${target.signing}"), and no ed25519 private key is configured: nothing is sent unsigned.`;
  }
  return { href: checked.href };
}

/** Sends the prepared request and classifies what came back (or did not) into an outcome. */
async function send(
  prepared: PreparedRequest,
  settings: AttemptSettings,
  timestamp: number,
  sensitive: readonly string[],
): Promise<DeliveryOutcome> {
  const { now, timeoutMs } = settings;
  const timeoutMessage = `timed out after ${timeoutMs} ms`;
  const sent = now();
  const finish = (
    reason: OutcomeReason,
    result: Classification & { status?: number; responseBody?: string },
  ): DeliveryOutcome => ({
    ...result,
    reason,
    latencyMs: Math.max(0, now() - sent),
    timestamp,
    ...(result.error === undefined ? {} : { error: redact(result.error, sensitive) }),
  });
  const request = new AttemptRequest(
    prepared.href,
    prepared.headers,
    prepared.body,
    timeoutMs,
    settings.maxResponseBytes,
  );
  const timeUp = (error: unknown) =>
    request.timedOut || (error as { name?: unknown } | null)?.name === "TimeoutError";
  try {
    let response: TransportResponse;
    try {
      response = await settings.transport(request);
    } catch (error) {
      if (timeUp(error)) return finish("timeout", { kind: "retry", error: `The attempt ${timeoutMessage}.` });
      const description = describeError(error, sensitive);
      return isBlockedAddressError(error)
        ? finish("blocked_address", { kind: "failed", error: description })
        : finish("network", { kind: "retry", error: description });
    }
    const classification = classifyResponse(response, now());
    try {
      const responseBody = redact(await response.readBody(), sensitive);
      return finish("status", { ...classification, status: response.status, responseBody });
    } catch (error) {
      // The status already decided the outcome; the body is only kept for the attempt log.
      if (classification.kind === "delivered")
        return finish("status", { ...classification, status: response.status });
      const reason = timeUp(error) ? timeoutMessage : describeError(error, sensitive);
      const detail = `${classification.error ?? ""} Reading the response body failed: ${reason}.`.trim();
      return finish("status", { ...classification, status: response.status, error: detail });
    }
  } finally {
    request.dispose();
  }
}

/**
 * The request handed to the transport. Its `signal` (an AbortController and a timer for what is left of the
 * budget) is made only when the transport reads it: fetch does, while the sender's undici transport enforces
 * `timeoutMs` itself and never pays for them. A prototype getter, because an object literal with an accessor is
 * slow to build.
 */
class AttemptRequest implements TransportRequest {
  readonly method = WEBHOOK_METHOD;
  timedOut = false;
  readonly #started = performance.now();
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
    readonly body: string | Uint8Array,
    readonly timeoutMs: number,
    readonly maxResponseBytes: number,
  ) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      const expire = () => {
        this.timedOut = true;
        controller.abort();
      };
      const left = this.timeoutMs - (performance.now() - this.#started);
      if (left <= 0) expire();
      else this.#timer = setTimeout(expire, left);
    }
    return this.#controller.signal;
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * A {@link Transport} over a WHATWG `fetch`: `redirect: "manual"`, the body read through {@link readCapped}.
 *
 * @example
 * ```ts
 * const outcome = await deliver(target, message, { transport: fetchTransport(globalThis.fetch) });
 * ```
 */
export function fetchTransport(fetchImpl: typeof globalThis.fetch): Transport {
  return async (request) => {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: request.signal,
    });
    return {
      status: response.status,
      type: response.type,
      headers: response.headers,
      readBody: () => readCapped(response, request.maxResponseBytes),
    };
  };
}
