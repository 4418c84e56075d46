/**
 * Fetch adapter: serve the New Plant webhook on any runtime with `Request`/`Response`
 * (Deno, Bun, Cloudflare Workers, Vercel, Node's own fetch servers).
 *
 * @module
 * @example
 * ```ts
 * import { createFetchHandler } from "@plant-store/core/fetch";
 *
 * const handle = createFetchHandler({ tokens: [Deno.env.get("TOKEN")!], onEvent: save });
 * Deno.serve(handle);
 * ```
 */
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "../receive/handler.js";
import { PREFLIGHTED } from "../receive/preflighted.js";
import { errorResponse } from "../receive/responses.js";
import type { WebhookResponse } from "../receive/types.js";

/**
 * Wraps the receive pipeline as `(Request) => Promise<Response>`. The body is read with the cap
 * enforced while streaming.
 *
 * @example
 * ```ts
 * export default { fetch: createFetchHandler({ tokens: [env.TOKEN], onEvent: save }) };
 * ```
 */
export function createFetchHandler(options: WebhookHandlerOptions): (request: Request) => Promise<Response>;
export function createFetchHandler(handler: WebhookHandler): (request: Request) => Promise<Response>;
export function createFetchHandler(
  options: WebhookHandlerOptions | WebhookHandler,
): (request: Request) => Promise<Response> {
  const handler = "handle" in options ? options : createWebhookHandler(options);
  return async (request) => {
    const url = new URL(request.url);
    const headers = (name: string) => request.headers.get(name);
    const base = { method: request.method, path: url.pathname, headers };
    const early = handler.preflight(base);
    if (early) {
      await request.body?.cancel().catch(() => {});
      return toResponse(early);
    }
    let body: Uint8Array | "too-large";
    try {
      body = await readLimited(request.body, handler.maxBodyBytes);
    } catch {
      return toResponse(errorResponse(400, "The request body could not be read. Send it again."));
    }
    if (body === "too-large") return toResponse(handler.tooLarge());
    return toResponse(await handler.handle({ ...base, body }, PREFLIGHTED));
  };
}

async function readLimited(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | "too-large"> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return "too-large";
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * Converts a pipeline response to a Fetch `Response`.
 *
 * @example
 * ```ts
 * toResponse({ status: 200, headers: {}, body: "" }).status; // 200
 * ```
 */
export function toResponse(response: Pick<WebhookResponse, "status" | "headers" | "body">): Response {
  const { connection: _dropped, ...headers } = response.headers;
  return new Response(response.body === "" ? null : response.body, { status: response.status, headers });
}
