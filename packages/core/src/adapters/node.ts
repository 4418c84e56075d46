/**
 * Node adapter: serve the New Plant webhook from `node:http` (or anything built on it).
 * It reads `IncomingMessage` directly — no Web-stream conversion — and stops reading at the body cap.
 *
 * @module
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createNodeHandler } from "@plant-store/core/node";
 *
 * const server = createServer(
 *   createNodeHandler({ tokens: [process.env.TOKEN!], onEvent: (event) => console.log(event.payload) }),
 * );
 * server.listen(4000);
 * ```
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "../receive/handler.js";
import type { WebhookResponse } from "../receive/types.js";

/** A `(req, res)` listener for `http.createServer`. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps the receive pipeline as a `node:http` request listener.
 *
 * @example
 * ```ts
 * http.createServer(createNodeHandler({ tokens: ["psk_…"], onEvent: save })).listen(4000);
 * ```
 */
export function createNodeHandler(options: WebhookHandlerOptions | WebhookHandler): NodeListener {
  const handler = "handle" in options ? options : createWebhookHandler(options);
  return (req, res) => {
    void handleNodeRequest(handler, req, res);
  };
}

/**
 * Runs one `node:http` request through a pipeline; resolves with the response once it is written (for logs and
 * metrics), or null when the client went away first. Never rejects. `preRead` is a body the caller already read.
 *
 * @example
 * ```ts
 * server.on("request", async (req, res) => {
 *   const response = await handleNodeRequest(handler, req, res);
 *   log.info({ status: response?.status });
 * });
 * ```
 */
export async function handleNodeRequest(
  handler: WebhookHandler,
  req: IncomingMessage,
  res: ServerResponse,
  preRead?: Uint8Array,
): Promise<WebhookResponse | null> {
  const headers = (name: string) => headerValue(req.headers[name]);
  const request = { method: req.method ?? "GET", path: pathOf(req.url), headers };
  let response = handler.preflight(request);
  if (response) {
    if (!req.complete) req.resume();
  } else {
    const body = preRead ?? (await readBody(req, handler.maxBodyBytes));
    if (body === "aborted") return null;
    response = body === "too-large" ? handler.tooLarge() : await handler.handle({ ...request, body });
  }
  send(res, response);
  return response;
}

/**
 * Reads a request body up to `limit` bytes. Past the limit it stops reading (the caller answers 413
 * and closes the connection), so an oversized body is never buffered.
 *
 * @example
 * ```ts
 * const body = await readBody(req, 1024 * 1024); // Uint8Array | "too-large" | "aborted"
 * ```
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | "too-large" | "aborted"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("aborted", onAbort);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve("too-large");
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      // No cleanup: the request is over and its listeners go with it (removing four cost a measurable share).
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onAbort = () => {
      cleanup();
      resolve("aborted");
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("aborted", onAbort);
  });
}

/**
 * Writes a pipeline response onto a `ServerResponse`.
 *
 * @example
 * ```ts
 * send(res, { status: 200, headers: {}, body: "" });
 * ```
 */
export function send(res: ServerResponse, response: WebhookResponse): void {
  if (res.headersSent) return;
  const headers: Record<string, string | number> = { ...response.headers };
  headers["content-length"] = Buffer.byteLength(response.body);
  res.writeHead(response.status, headers);
  res.end(response.body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function pathOf(url: string | undefined): string {
  if (!url) return "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}
