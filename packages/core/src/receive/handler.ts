import type { WebhookEntry } from "@plant-store/spec";
import { pipelineContext, type WebhookHandlerOptions } from "./handler-options.js";
import { runPipeline } from "./pipeline.js";
import { preflight, tooLarge } from "./preflight.js";
import type { WebhookRequest, WebhookResponse } from "./types.js";

export { DEFAULT_MAX_BODY_BYTES, type WebhookHandlerOptions } from "./handler-options.js";

/**
 * What {@link WebhookHandler.handle} is told about the request beyond it: `preflighted` when the caller (an adapter)
 * has just run `preflight` on this same request and got null, so those checks are not repeated.
 */
export interface HandleOptions {
  preflighted?: boolean | undefined;
}

/**
 * The receive pipeline: `preflight` before the body is read, `handle` with it. Never throws. An adapter that can
 * answer before reading the body runs `preflight` first, then `handle(request, { preflighted: true })`.
 */
export interface WebhookHandler {
  readonly maxBodyBytes: number;
  /** The webhooks served, in order (the first is the fallback when a request names none). */
  readonly events: readonly WebhookEntry[];
  /** Checks path, method, content type and declared length; a response to send now, or null to read the body. */
  preflight(request: Omit<WebhookRequest, "body">): WebhookResponse | null;
  /** Runs the pipeline over a fully read body: every stage, or those after `preflight` when it was run. */
  handle(request: WebhookRequest, options?: HandleOptions): Promise<WebhookResponse>;
  /** The response for a body that grew past the cap while being read. */
  tooLarge(): WebhookResponse;
}

/**
 * Builds the receive pipeline of the New Plant webhook, written once over plain data:
 * path/method → content type → size cap → bearer → signature + timestamp → JSON → schema → dedup → `onEvent` → 200.
 * Every failure is a `{ error, message }` response of the contract; nothing throws, nothing answers 5xx but 503.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({
 *   tokens: [process.env.PLANT_STORE_TOKEN!],
 *   secrets: [process.env.PLANT_STORE_WEBHOOK_SECRET!],
 *   onEvent: async (event) => { await db.insert(event.payload); },
 * });
 * const res = await handler.handle({ method: "POST", path: "/plant/webhook", headers: (n) => h[n], body });
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const context = pipelineContext(options);
  return {
    maxBodyBytes: context.maxBodyBytes,
    events: context.routes.served,
    preflight: (request) => preflight(context, request),
    handle: (request, handleOptions) => runPipeline(context, request, handleOptions?.preflighted === true),
    tooLarge: () => tooLarge(context),
  };
}
