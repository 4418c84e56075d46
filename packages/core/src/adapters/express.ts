/**
 * Express adapter (Express 4 and 5). Mount it before `express.json()`, or on a route that uses
 * `express.raw({ type: "application/json" })`: signatures are computed over the raw bytes, which a
 * JSON body parser throws away.
 *
 * @module
 * @example
 * ```ts
 * import express from "express";
 * import { plantStoreWebhook } from "@plant-store/core/express";
 *
 * const app = express();
 * app.post("/plant/webhook", plantStoreWebhook({ tokens: [process.env.TOKEN!], onEvent: save }));
 * app.use(express.json()); // after the webhook route
 * ```
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "../receive/handler.js";
import { errorResponse } from "../receive/responses.js";
import { handleNodeRequest, send } from "./node.js";

type ExpressRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; _body?: boolean };

/** The middleware `plantStoreWebhook` returns (`(req, res, next)`). */
export type ExpressMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** The message answered (with 503, so the sender retries and nothing is lost) when the raw body is gone. */
export const BODY_ALREADY_PARSED =
  "The webhook's raw body was already consumed by a body parser such as express.json(). Mount plantStoreWebhook() " +
  "before express.json(), or use express.raw({ type: 'application/json' }) on this route, so the signature can be " +
  "checked over the exact bytes.";

/**
 * Express middleware running the receive pipeline. The route decides the path; the pipeline checks
 * method, content type, size, token, signature and payload.
 *
 * @example
 * ```ts
 * app.post("/plant/webhook", plantStoreWebhook({ tokens: ["psk_…"], secrets: ["whsec_…"], onEvent: save }));
 * ```
 */
export function plantStoreWebhook(options: WebhookHandlerOptions): ExpressMiddleware;
export function plantStoreWebhook(handler: WebhookHandler): ExpressMiddleware;
export function plantStoreWebhook(options: WebhookHandlerOptions | WebhookHandler): ExpressMiddleware {
  const handler = "handle" in options ? options : createWebhookHandler({ ...options, path: null });
  return (req, res, next) => {
    const r = req as ExpressRequest;
    let raw: Uint8Array | undefined;
    if (r.body instanceof Uint8Array) raw = r.body;
    else if (r.rawBody instanceof Uint8Array) raw = r.rawBody;
    else if (r._body === true || req.readableEnded) {
      console.error(`@plant-store/core/express: ${BODY_ALREADY_PARSED}`);
      send(res, errorResponse(503, BODY_ALREADY_PARSED));
      return;
    }
    handleNodeRequest(handler, req, res, { body: raw }).catch(next);
  };
}
