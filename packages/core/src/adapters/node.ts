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
import { PREFLIGHTED } from "../receive/preflighted.js";
import type { WebhookRequest, WebhookResponse } from "../receive/types.js";

const NO_BODY = new Uint8Array(0);

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
export function createNodeHandler(options: WebhookHandlerOptions): NodeListener;
export function createNodeHandler(handler: WebhookHandler): NodeListener;
export function createNodeHandler(options: WebhookHandlerOptions | WebhookHandler): NodeListener {
  const handler = "handle" in options ? options : createWebhookHandler(options);
  return (req, res) => {
    void handleNodeRequest(handler, req, res);
  };
}

/** Options of {@link handleNodeRequest}. */
export interface NodeRequestOptions {
  /** A body the caller already read (a framework's raw body); otherwise it is read from `req`, up to the cap. */
  body?: Uint8Array | undefined;
  /**
   * Called for a request refused with `connection: close` before its body was read (a 413), before the answer is
   * written: the server decides how the rest of the body is drained. Default: node:http's own handling.
   */
  drainRefused?: ((req: IncomingMessage) => void) | undefined;
}

/**
 * Runs one `node:http` request through a pipeline; resolves with the response once it is written (for logs and
 * metrics), or null when the client went away first. Never rejects.
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
  options: NodeRequestOptions = {},
): Promise<WebhookResponse | null> {
  // One object for the whole request: its body is filled in once read.
  const request: WebhookRequest = {
    method: req.method ?? "GET",
    path: requestPath(req.url),
    headers: nodeHeaders(req),
    body: NO_BODY,
  };
  let response = handler.preflight(request);
  if (response) {
    if (!req.complete) {
      if (response.headers.connection === "close") options.drainRefused?.(req);
      else req.resume();
    }
  } else {
    const body = options.body ?? (await readBody(req, handler.maxBodyBytes));
    if (body === "aborted") return null;
    if (body === "too-large") {
      response = handler.tooLarge();
      options.drainRefused?.(req);
    } else {
      request.body = body;
      response = await handler.handle(request, PREFLIGHTED);
    }
  }
  send(res, response);
  return response;
}

/**
 * For a `checkContinue` listener: a request that sent `Expect: 100-continue` first gets the checks that need no body
 * (path, method, content type, declared size). A refusal is sent at once and the body is never invited (false);
 * otherwise `100 Continue` is sent (true) and the caller serves the request as usual.
 *
 * @example
 * ```ts
 * server.on("checkContinue", (req, res) => {
 *   if (answerExpectContinue(handler, req, res)) server.emit("request", req, res);
 * });
 * ```
 */
export function answerExpectContinue(
  handler: WebhookHandler,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const early = handler.preflight({
    method: req.method ?? "GET",
    path: requestPath(req.url),
    headers: nodeHeaders(req),
  });
  if (!early) {
    res.writeContinue();
    return true;
  }
  // The client holds the body back until it hears 100 Continue; it will not come, so the connection ends here.
  send(res, { ...early, headers: { ...early.headers, connection: "close" } });
  return false;
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
      req.off("close", onClose);
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
      // No cleanup: the request is over and its listeners go with it, at no cost per request.
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onClose = () => {
      if (req.complete) return; // its body arrived whole; "end" has it
      cleanup();
      resolve("aborted");
    };
    req.on("data", onData);
    req.on("end", onEnd);
    // A request that ends before its body does (the client gone, or `req.destroy()` by anyone) closes; "error" is
    // emitted only to listeners and not for every destroy, "aborted" is deprecated.
    req.on("close", onClose);
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
export function send(
  res: ServerResponse,
  response: Pick<WebhookResponse, "status" | "headers" | "body">,
): void {
  if (res.headersSent) return;
  // A flat [name, value, …] list: node takes it as is, with no copy of the headers object to add the length.
  const headers: string[] = [];
  for (const name in response.headers) headers.push(name, response.headers[name] as string);
  headers.push("content-length", response.body === "" ? "0" : String(Buffer.byteLength(response.body)));
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/**
 * The pipeline's header reader over an `IncomingMessage`. Repeated fields are joined with ", " as the Fetch API
 * does — including `Authorization`, of which node:http keeps only the first: a request carrying two
 * (RFC 9110 §5.3 allows only one) is then refused as malformed instead of authenticated by whichever a proxy in
 * front of us did not look at.
 *
 * @example
 * ```ts
 * const headers = nodeHeaders(req);
 * headers("webhook-id"); // "msg_…"
 * ```
 */
export function nodeHeaders(req: IncomingMessage): (name: string) => string | undefined {
  return (name) => {
    const value = req.headers[name];
    if (Array.isArray(value)) return value.join(", ");
    return name === "authorization" && value !== undefined ? allAuthorization(req.rawHeaders, value) : value;
  };
}

function allAuthorization(raw: string[], first: string): string {
  let values: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    if (field.length !== 13 || field.toLowerCase() !== "authorization") continue;
    values ??= [];
    values.push((raw[i + 1] as string).trim());
  }
  return values !== undefined && values.length > 1 ? values.join(", ") : first;
}

/**
 * The path of a request target without its query: origin-form (`/plant/webhook?x=1`) or absolute-form
 * (`http://host/plant/webhook`, which RFC 9112 §3.2.2 says servers must accept).
 *
 * @example
 * ```ts
 * requestPath("http://127.0.0.1:4000/plant/webhook?x=1"); // "/plant/webhook"
 * ```
 */
export function requestPath(url: string | undefined): string {
  if (!url) return "/";
  let start = 0;
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    const scheme = url.indexOf("://");
    if (scheme !== -1) {
      start = url.indexOf("/", scheme + 3);
      if (start === -1) return "/";
    }
  }
  const q = url.indexOf("?", start);
  return q === -1 ? (start === 0 ? url : url.slice(start)) : url.slice(start, q);
}
