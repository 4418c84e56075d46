import type { WebhookOutcome, WebhookResponse } from "./types.js";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/**
 * A `{ error, message }` response of the contract.
 *
 * @example
 * ```ts
 * errorResponse(405, "Send the webhook with POST.", { allow: "POST" }).body; // '{"error":405,"message":"Send the webhook with POST."}'
 * ```
 */
export function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): WebhookResponse {
  return {
    status,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ error: status, message }),
    outcome: { kind: "rejected", reason: message },
  };
}

// Built once: every 200 is one of these two (a pipeline response is never mutated).
const STORED: WebhookOutcome = Object.freeze({ kind: "stored" });
const DUPLICATE: WebhookOutcome = Object.freeze({ kind: "duplicate" });
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const DUPLICATE_HEADERS: Record<string, string> = Object.freeze({ "webhook-duplicate": "true" });

/**
 * The 200 answered once an event is stored (or was stored before).
 *
 * @example
 * ```ts
 * okResponse(true).headers; // { "webhook-duplicate": "true" }
 * ```
 */
export function okResponse(duplicate: boolean): WebhookResponse {
  return duplicate
    ? { status: 200, headers: DUPLICATE_HEADERS, body: "", outcome: DUPLICATE }
    : { status: 200, headers: NO_HEADERS, body: "", outcome: STORED };
}
