import { DEFAULT_TIMEOUT_MS, sign } from "@plant-store/core";
import { EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";
import { fetchFailure, redirectNote } from "./output.js";

/** What forwarding one event came to: the downstream's status, or why there is none. */
export interface Forwarded {
  status: number | null;
  error?: string;
  /** Attempts made (1 when the first succeeded). */
  attempts: number;
}

/** One event to relay: its exact bytes and the headers it came with (or is replayed with). */
export interface Relayed {
  body: Uint8Array;
  headers: Readonly<Record<string, string>>;
}

// Headers relayed as received: the downstream sees what the sender sent, signature and event type included.
const RELAYED = [
  "content-type",
  "user-agent",
  EVENT_TYPE_HEADER,
  WEBHOOK_HEADERS.id,
  WEBHOOK_HEADERS.timestamp,
  WEBHOOK_HEADERS.signature,
];

/** Delays before the 2nd, 3rd, … attempt: 1 s doubling to at most 30 s. */
export const backoffMs = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1));

/**
 * Relays an event to `target`, retrying a failure that may pass later (no answer, 5xx, 408, 429) `retries` times
 * with backoff; `onRetry` hears of each wait. `authorization` is sent as given; with `secret`, the event is signed
 * anew (same webhook-id, a fresh timestamp), as a replay long after receipt must be for the downstream's tolerance
 * window.
 *
 * @example
 * ```ts
 * await forwardEvent(new URL("http://127.0.0.1:3000/plant/webhook"), event, { retries: 5, signal });
 * ```
 */
export async function forwardEvent(
  target: URL,
  event: Relayed,
  options: {
    retries: number;
    signal: AbortSignal;
    authorization?: string | undefined;
    secret?: string | undefined;
    onRetry?: (result: Forwarded, waitMs: number) => void;
  },
): Promise<Forwarded> {
  for (let attempt = 1; ; attempt++) {
    const result = await forwardOnce(target, event, options, attempt);
    if (!retryable(result) || attempt > options.retries || options.signal.aborted) return result;
    const waitMs = backoffMs(attempt);
    options.onRetry?.(result, waitMs);
    const waited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), waitMs);
      options.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!waited) return { ...result, error: "stopped" };
  }
}

/**
 * Whether another try may fare better: no answer, a 5xx, 408 or 429. A 2xx is done; a redirect or another 4xx is
 * the downstream's verdict on this request, the same on every try.
 */
function retryable(result: Forwarded): boolean {
  const { status } = result;
  return status === null || status >= 500 || status === 408 || status === 429;
}

async function forwardOnce(
  target: URL,
  event: Relayed,
  options: { signal: AbortSignal; authorization?: string | undefined; secret?: string | undefined },
  attempts: number,
): Promise<Forwarded> {
  const headers: Record<string, string> = {};
  for (const name of RELAYED) {
    const value = event.headers[name];
    if (value) headers[name] = value;
  }
  if (options.authorization) headers.authorization = options.authorization;
  const id = headers[WEBHOOK_HEADERS.id];
  if (options.secret && id) {
    const timestamp = Math.floor(Date.now() / 1000);
    headers[WEBHOOK_HEADERS.timestamp] = String(timestamp);
    headers[WEBHOOK_HEADERS.signature] = await sign({
      secret: options.secret,
      id,
      timestamp,
      body: event.body,
    });
  }
  try {
    const res = await fetch(target, {
      method: "POST",
      headers,
      body: event.body,
      redirect: "manual", // a 301/302 would be followed as a bodyless GET that "succeeds"
      signal: AbortSignal.any([AbortSignal.timeout(DEFAULT_TIMEOUT_MS), options.signal]),
    });
    await res.arrayBuffer();
    const redirect = redirectNote(res.status, res.headers.get("location"));
    return { status: res.status, attempts, ...(redirect && { error: redirect }) };
  } catch (error) {
    return {
      status: null,
      attempts,
      error: options.signal.aborted ? "stopped" : fetchFailure(error, DEFAULT_TIMEOUT_MS),
    };
  }
}
