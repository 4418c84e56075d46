/**
 * Hono adapter: a handler for `app.post(path, …)` (or `app.all`, so wrong methods get the contract's 405).
 *
 * @module
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { plantStoreWebhook } from "@plant-store/core/hono";
 *
 * const app = new Hono();
 * app.all("/plant/webhook", plantStoreWebhook({ tokens: [env.TOKEN], onEvent: save }));
 * ```
 */
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "../receive/handler.js";
import { createFetchHandler } from "./fetch.js";

/** The slice of Hono's `Context` the handler uses. */
export interface HonoContextLike {
  req: { raw: Request };
}

/**
 * Builds a Hono handler running the receive pipeline on `c.req.raw`.
 *
 * @example
 * ```ts
 * app.all("/plant/webhook", plantStoreWebhook({ tokens: ["psk_…"], onEvent: save }));
 * ```
 */
export function plantStoreWebhook(options: WebhookHandlerOptions): (c: HonoContextLike) => Promise<Response>;
export function plantStoreWebhook(handler: WebhookHandler): (c: HonoContextLike) => Promise<Response>;
export function plantStoreWebhook(
  options: WebhookHandlerOptions | WebhookHandler,
): (c: HonoContextLike) => Promise<Response> {
  const handler = "handle" in options ? options : createWebhookHandler({ ...options, path: null });
  const fetchHandler = createFetchHandler(handler);
  return (c) => fetchHandler(c.req.raw);
}
