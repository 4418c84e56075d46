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
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import {
  createWebhookHandler,
  handleAfterPreflight,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from "../receive/handler.js";
import type { WebhookRequest, WebhookResponse } from "../receive/types.js";

const NO_BODY = new Uint8Array(0);

export { createNodeServer, type NodeServerOptions, refuseHead } from "./node-server.js";

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
  // One object for the whole request: its body is filled in once read (a copy with the body cost a clone per request).
  const request: WebhookRequest = {
    method: req.method ?? "GET",
    path: requestPath(req.url),
    headers: nodeHeaders(req),
    body: NO_BODY,
  };
  let response = handler.preflight(request);
  if (response) {
    if (!req.complete) {
      if (response.headers.connection === "close") lingerAfterRefusal(req);
      else req.resume();
    }
  } else {
    const body = preRead ?? (await readBody(req, handler.maxBodyBytes));
    if (body === "aborted") return null;
    if (body === "too-large") {
      response = handler.tooLarge();
      lingerAfterRefusal(req);
    } else {
      request.body = body;
      response = await handleAfterPreflight(handler, request);
    }
  }
  send(res, response);
  return response;
}

/** How long, and how many bytes of an unread body, a connection is drained for after a refusal that closes it. */
export const LINGER = { ms: 5_000, bytes: 16 * 1024 * 1024 } as const;

/**
 * A lingering close, as nginx does it: after a refusal that closes the connection (a 413) while the client is still
 * sending its body, our side is shut (FIN after the answer) and what still arrives is read and discarded until the
 * client is done — its body ends or it closes — for at most {@link LINGER} (5 s, 16 MiB); then the socket is closed.
 * Closing at once with unread bytes makes the kernel reset the connection, and a reset can discard the answer before
 * the client read it: the client would see a connection error (and retry) instead of the refusal.
 *
 * @example
 * ```ts
 * lingerAfterRefusal(req);
 * send(res, handler.tooLarge()); // `connection: close`
 * ```
 */
export function lingerAfterRefusal(
  req: IncomingMessage,
  limits: { ms: number; bytes: number } = LINGER,
): void {
  const socket = req.socket as IncomingMessage["socket"] & { destroySoon?: () => void };
  let discarded = 0;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, limits.ms);
  timer.unref();
  // node:http destroys the socket once a `connection: close` answer is written (destroySoon); instead only our side
  // ends here, after the answer, and reading goes on below.
  socket.destroySoon = () => {
    socket.end();
    if (req.complete) close();
  };
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.bytes) close();
  });
  req.once("end", () => {
    if (socket.writableEnded) close();
  });
  socket.once("end", close);
  socket.once("close", () => clearTimeout(timer));
  req.resume();
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

/** Sockets whose refusal waits for the response to an earlier request on them. */
const deferred = new WeakSet<Duplex>();

/**
 * A `clientError` listener answering what node:http cannot parse (malformed or oversized headers, a request that
 * took too long) in the contract's shape, `{ error, message }` as JSON, instead of node's empty 400. Like node's own
 * handler it writes only when no response has started on the socket, then closes it; while an earlier request on the
 * connection is still being answered, the refusal waits for that response.
 *
 * @example
 * ```ts
 * server.on("clientError", answerClientError);
 * ```
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const message = socket as Duplex & { _httpMessage?: ServerResponse | null };
  const pending = message._httpMessage;
  if (
    error.code !== "ECONNRESET" &&
    pending?.req.complete &&
    !pending.writableFinished &&
    !socket.destroyed
  ) {
    // A request before the malformed one (pipelined on this connection) arrived whole and is still being answered,
    // perhaps after it was stored: its response goes first, as RFC 9112 §9.3.2 orders them, then the refusal.
    // Answering at once would put the 400 in the stored request's place, and the sender would count a stored event
    // as refused. When the pending request is itself the one that failed (its body too slow, or broken chunk
    // framing), nothing else will ever answer it: the refusal is its answer, now.
    if (deferred.has(socket)) return;
    deferred.add(socket);
    const retry = () => {
      deferred.delete(socket);
      setImmediate(() => answerClientError(error, socket)); // after node assigned the next queued response
    };
    pending.once("finish", retry);
    pending.once("close", () => {
      if (!pending.writableFinished) socket.destroy();
    });
    return;
  }
  if (error.code !== "ECONNRESET" && socket.writable && !pending?.headersSent) {
    const [status, text] =
      error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "The request headers are too large."]
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "The request did not arrive in time. Send it again, without pausing."]
          : [400, "The request is not valid HTTP/1.1 (malformed request line, header or body framing)."];
    const body = JSON.stringify({ error: status, message: text });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
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
      // No cleanup: the request is over and its listeners go with it (removing four cost a measurable share).
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
