import { logText } from "@plant-store/app-kit";
import { InvalidEventError, StoreConflictError, StoreError, StoreInputError } from "@plant-store/store";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { ApiError } from "../route-table.js";
import { sendError } from "./send-error.js";

type ErrorHandler = (
  error: Error & { statusCode?: number; code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
) => FastifyReply;

/**
 * The admin API's error handler: an error a handler throws, or Fastify's own (bad JSON, body too large), becomes the
 * contract's `{ error, message }` with the status it means; anything unexpected is logged and answers 503.
 *
 * @example
 * ```ts
 * app.setErrorHandler(adminErrorHandler({ bodyLimit, logger }));
 * ```
 */
export function adminErrorHandler(options: { bodyLimit: number; logger: Logger | undefined }): ErrorHandler {
  return (error, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error.status, error.message, error.problems);
    if (error instanceof InvalidEventError)
      return sendError(reply, error.kind === "json" ? 400 : 422, error.message);
    if (error instanceof StoreConflictError)
      return sendError(reply, error.code === "not_found" ? 404 : 409, error.message);
    if (error instanceof StoreInputError) return sendError(reply, 400, error.message);
    if (error.statusCode && error.statusCode < 500) {
      const limit = request.routeOptions.bodyLimit ?? options.bodyLimit;
      return sendError(reply, error.statusCode, clientErrorMessage(error, limit));
    }
    options.logger?.error(
      { path: logText(request.url), error: logText(error.message) },
      "admin request failed",
    );
    const unavailable = error instanceof StoreError;
    return sendError(
      reply,
      503,
      unavailable ? "The store is not available right now. Retry later." : "The request failed. Retry later.",
    );
  };
}

function clientErrorMessage(error: Error & { code?: string }, bodyLimit: number): string {
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return `The body is larger than ${bodyLimit} bytes.`;
  if (error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") return "The body is empty; send a JSON object.";
  return `The request could not be read: ${error.message}`;
}

/**
 * What Fastify and node:http refuse before a route runs answers in the contract's shape too, not Fastify's
 * `{ statusCode, code, error: "Bad Request" }`: a malformed URL, an over-long path segment, unparsable HTTP.
 *
 * @example
 * ```ts
 * Fastify({ frameworkErrors });
 * ```
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH")
    sendError(reply, 414, "A path segment is longer than 100 characters; no id is that long.");
  else if (error.code === "FST_ERR_BAD_URL")
    sendError(reply, 400, "The URL is not valid: a malformed percent-encoding in the path.");
  else sendError(reply, 400, "The request could not be routed.");
}
