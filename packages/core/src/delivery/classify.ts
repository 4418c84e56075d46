import { withoutCredentials } from "../url-credentials.js";
import { parseRetryAfter } from "./retry-after.js";
import type { OutcomeKind, TransportResponse } from "./types.js";

/** Statuses whose `Retry-After` is honoured: the endpoint says when it can take more. */
const BACKOFF_STATUSES = new Set([429, 502, 503, 504]);

/** The status-dependent part of a `DeliveryOutcome`. */
export interface Classification {
  kind: OutcomeKind;
  retryAfterMs?: number;
  error?: string;
}

/**
 * Classifies a response that arrived: 2xx delivered, 410 gone, 3xx a retry (redirects are never
 * followed), 429/502/503/504 a retry honouring `Retry-After`, any other status a retry.
 *
 * @example
 * ```ts
 * classifyResponse(new Response(null, { status: 503, headers: { "retry-after": "30" } }), Date.now());
 * // { kind: "retry", retryAfterMs: 30000, error: "The endpoint answered 503." }
 * ```
 */
export function classifyResponse(
  response: Pick<TransportResponse, "status" | "type" | "headers">,
  nowMs: number,
): Classification {
  const { status } = response;
  if (status >= 200 && status <= 299) return { kind: "delivered" };
  if (status === 410) {
    return { kind: "gone", error: "The endpoint answered 410 Gone: it asks for no more deliveries." };
  }
  // Browsers hide a manual redirect behind an opaque response with status 0.
  if (response.type === "opaqueredirect" || (status >= 300 && status <= 399)) {
    const location = response.headers.get("location");
    // The error is stored and shown through the sender's admin API: a password in the Location is not repeated.
    const to = location ? ` to ${withoutCredentials(location).slice(0, 200)}` : "";
    return {
      kind: "retry",
      error: `The endpoint answered ${status || "a redirect"}${to}; redirects are not followed, so update the subscription URL.`,
    };
  }
  const error = `The endpoint answered ${status}.`;
  if (BACKOFF_STATUSES.has(status)) {
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), nowMs);
    return retryAfterMs === undefined ? { kind: "retry", error } : { kind: "retry", retryAfterMs, error };
  }
  return { kind: "retry", error };
}
