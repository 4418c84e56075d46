import type { PipelineContext } from "./context.js";
import { errorResponse } from "./responses.js";
import { truncate } from "./text.js";
import type { WebhookRequest, WebhookResponse } from "./types.js";

/**
 * The checks that need no body: path (404), method (405), content type and encoding (415), declared length (413).
 * A response to send now, or null to read the body.
 *
 * @example
 * ```ts
 * const early = preflight(context, { method: "POST", path: "/plant/webhook", headers });
 * ```
 */
export function preflight(
  context: PipelineContext,
  request: Omit<WebhookRequest, "body">,
): WebhookResponse | null {
  const { byPath, path, fallback, where } = context.routes;
  const entry = byPath
    ? byPath.get(request.path)
    : path === null || request.path === path
      ? fallback
      : undefined;
  if (entry === undefined) {
    return errorResponse(
      404,
      `Nothing is served at ${truncate(request.path, 100)}. Send webhooks to ${where}.`,
    );
  }
  if (request.method !== entry.method && request.method.toUpperCase() !== entry.method) {
    return errorResponse(
      405,
      `${truncate(request.method, 20)} is not allowed here. Send the webhook with ${entry.method}.`,
      { allow: entry.method },
    );
  }
  return refuseContent(context, request);
}

/** The content type, encoding and declared length of a request whose route and method passed. */
function refuseContent(
  context: PipelineContext,
  request: Omit<WebhookRequest, "body">,
): WebhookResponse | null {
  const contentType = request.headers("content-type");
  if (!context.isJson(contentType)) {
    return errorResponse(
      415,
      contentType
        ? `Content type '${truncate(contentType, 100)}' is not accepted. Send 'Content-Type: application/json' (UTF-8).`
        : "The request has no Content-Type. Send 'Content-Type: application/json'.",
    );
  }
  const encoding = request.headers("content-encoding");
  if (encoding && encoding.trim().toLowerCase() !== "identity") {
    return errorResponse(
      415,
      `Content-Encoding '${truncate(encoding, 50)}' is not accepted. Send the JSON body uncompressed.`,
      { "accept-encoding": "identity" },
    );
  }
  const length = request.headers("content-length");
  // Number() first: the digits check runs only for a length that would be refused.
  if (length && Number(length) > context.maxBodyBytes && /^\d+$/.test(length)) return tooLarge(context);
  return null;
}

/**
 * The 413 for a body past the cap, declared or found while reading; it closes the connection.
 *
 * @example
 * ```ts
 * if (body.byteLength > context.maxBodyBytes) return tooLarge(context);
 * ```
 */
export function tooLarge(context: PipelineContext): WebhookResponse {
  return errorResponse(
    413,
    `The body is larger than ${context.maxBodyBytes} bytes. A New Plant payload is a small JSON object; send one plant per request.`,
    { connection: "close" },
  );
}
