import type { WebhookResponse } from "@plant-store/core";

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" } as const;

/**
 * A `{ error, message }` response, the contract's error shape for every endpoint.
 *
 * @example
 * ```ts
 * send(res, errorBody(404, "Nothing is served at /x."));
 * ```
 */
export function errorBody(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): WebhookResponse {
  return { status, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify({ error: status, message }) };
}

/**
 * A JSON response.
 *
 * @example
 * ```ts
 * send(res, jsonResponse(200, { status: "ok" }));
 * ```
 */
export function jsonResponse(status: number, value: unknown): WebhookResponse {
  return { status, headers: { ...JSON_TYPE }, body: JSON.stringify(value) };
}
