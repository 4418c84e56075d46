import type { WebhookResponse } from "./types.js";

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
  };
}

/**
 * The 200 answered once an event is stored (or was stored before).
 *
 * @example
 * ```ts
 * okResponse(true).headers; // { "webhook-duplicate": "true" }
 * ```
 */
export function okResponse(duplicate: boolean): WebhookResponse {
  return { status: 200, headers: duplicate ? { "webhook-duplicate": "true" } : {}, body: "" };
}
