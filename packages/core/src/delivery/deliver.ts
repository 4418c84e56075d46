import { DEFAULT_EVENT_TYPE, EVENT_TYPE_HEADER, WEBHOOK_HEADERS, WEBHOOK_METHOD } from "@plant-store/spec";
import { functionOption, invalidOption, numberOption, stringOption } from "../options.js";
import { signatureHeader } from "../signing/index.js";
import { VERSION } from "../version.js";
import { checkTargetKept } from "./check-target.js";
import { type Classification, classifyResponse } from "./classify.js";
import { describeError, isBlockedAddressError, redact } from "./describe-error.js";
import { EVENT_TYPE_PATTERN } from "./outbox-rules.js";
import { readCapped } from "./read-capped.js";
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
// Visible ASCII: anything else is not a valid header value, and the receiver deduplicates on it byte for byte.
const HEADER_SAFE_ID = /^[\x21-\x7e]+$/;

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
  const secrets: readonly unknown[] = Array.isArray(target.secrets) ? target.secrets : [];
  const keys: readonly unknown[] = Array.isArray(target.privateKeys) ? target.privateKeys : [];
  const sensitive = [target.token, ...secrets, ...keys].filter(
    (value): value is string => typeof value === "string",
  );
  const timestamp = Math.floor(now() / 1000);
  const unusable = (error: string): DeliveryOutcome => ({
    kind: "failed",
    reason: "unusable_target",
    latencyMs: 0,
    timestamp,
    error: redact(error, sensitive),
  });

  if (!Array.isArray(target.secrets)) {
    return unusable("The target's secrets must be an array of 'whsec_…' strings (empty to send unsigned).");
  }
  const checked = checkTargetKept(target);
  if (!checked.ok) return unusable(checked.reason);
  if (typeof message.id !== "string" || !HEADER_SAFE_ID.test(message.id)) {
    return unusable("The message id must be a non-empty string of visible ASCII to be sent as webhook-id.");
  }
  const eventType = message.eventType ?? DEFAULT_EVENT_TYPE;
  if (typeof eventType !== "string" || !EVENT_TYPE_PATTERN.test(eventType)) {
    return unusable(
      `The message event type must be a non-empty string of visible ASCII to be sent as ${EVENT_TYPE_HEADER}.`,
    );
  }
  if (typeof message.body !== "string" && !(message.body instanceof Uint8Array)) {
    return unusable("The message body must be a string or a Uint8Array holding the exact bytes to send.");
  }

  const headers: Record<string, string> = {
    authorization: `Bearer ${target.token}`,
    "content-type": "application/json",
    "user-agent": userAgent,
    [WEBHOOK_HEADERS.id]: message.id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [EVENT_TYPE_HEADER]: eventType,
  };
  const privateKeys = target.privateKeys ?? [];
  if (!Array.isArray(privateKeys)) {
    return unusable("The target's privateKeys must be an array of 'whsk_…' strings.");
  }
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
      return unusable(`Cannot sign for this target: ${describeError(error, sensitive)}`);
    }
  }

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

  const request = new AttemptRequest(checked.href, headers, message.body, timeoutMs, maxResponseBytes);
  const timeUp = (error: unknown) =>
    request.timedOut || (error as { name?: unknown } | null)?.name === "TimeoutError";
  try {
    let response: TransportResponse;
    try {
      response = await transport(request);
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
 * budget) is made only when the transport reads it — fetch does; the sender's undici transport enforces
 * `timeoutMs` itself — because the two cost about a sixth of a fast attempt's instructions. A prototype getter,
 * not an object-literal one: V8 builds a literal with an accessor slowly, at about the same cost again.
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
