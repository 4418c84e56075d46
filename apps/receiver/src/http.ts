import type { WebhookResponse } from "@plant-store/core";

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" } as const;

/**
 * A JSON response.
 *
 * @example
 * ```ts
 * send(res, jsonResponse(200, { status: "ok" }));
 * ```
 */
export function jsonResponse(
  status: number,
  value: unknown,
): Pick<WebhookResponse, "status" | "headers" | "body"> {
  return { status, headers: { ...JSON_TYPE }, body: JSON.stringify(value) };
}
