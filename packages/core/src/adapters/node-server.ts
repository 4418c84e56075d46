import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Duplex } from "node:stream";
import { errorResponse } from "../receive/responses.js";
import type { WebhookResponse } from "../receive/types.js";
import { answerClientError, send } from "./node.js";

/** Options of {@link createNodeServer}. */
export interface NodeServerOptions {
  /** Time allowed to receive a request's headers (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number;
  /** Idle time a keep-alive connection stays open. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /**
   * For a request that sent `Expect: 100-continue` (its head already passed the Host checks): answer or invite the
   * body, and return whether the request is then served as usual. Default: `100 Continue` is sent, it is served.
   */
  expectContinue?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * An `http.Server` whose every answer is the contract's `{ error, message }` JSON, including the ones node:http
 * would write itself: an unparsable request or a slow client (400/431/408, {@link answerClientError}), an HTTP/1.1
 * request without `Host` or with two (400, RFC 9112 §3.2), an `Expect` other than `100-continue` (417), `CONNECT`
 * (405). The header and request timeouts are checked every second (or sooner), not every 30 s (node's default,
 * which let a slow client hold a connection 30 s past its limit).
 *
 * @example
 * ```ts
 * const server = createNodeServer((req, res) => res.end("ok"), { headersTimeoutMs: 10_000 });
 * server.listen(4000);
 * ```
 */
export function createNodeServer(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  options: NodeServerOptions = {},
): Server {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const guarded = (req: IncomingMessage, res: ServerResponse) => {
    const refusal = refuseHead(req);
    if (refusal) return refuse(req, res, refusal);
    listener(req, res);
  };
  const server = createServer(
    {
      // Checked here instead, so a missing Host is answered as JSON (node's own answer is an empty 400).
      requireHostHeader: false,
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout || headersTimeout) / 2)),
      ),
    },
    guarded,
  );
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on("clientError", answerClientError);
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    const refusal = refuseHead(req);
    // Not invited, the body will not come: the refusal ends the connection.
    if (refusal) return send(res, refusal);
    if (options.expectContinue) {
      if (options.expectContinue(req, res)) listener(req, res);
      return;
    }
    res.writeContinue();
    listener(req, res);
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) =>
    refuse(
      req,
      res,
      errorResponse(
        417,
        `Expect: ${String(req.headers.expect).slice(0, 100)} cannot be met; the only expectation served is 100-continue. Send the request without it.`,
        { connection: "close" },
      ),
    ),
  );
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    const answer = errorResponse(405, "CONNECT is not served here: this is not a proxy.", {
      allow: "GET, HEAD, POST",
      connection: "close",
    });
    writeRaw(socket, answer);
  });
  return server;
}

/**
 * What is wrong with a request's head before any route sees it: an HTTP/1.1 request must carry exactly one `Host`
 * (RFC 9112 §3.2), and none may carry two. Null when it is fine.
 *
 * @example
 * ```ts
 * refuseHead(req)?.status; // 400 when Host is missing or repeated
 * ```
 */
export function refuseHead(req: IncomingMessage): WebhookResponse | null {
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    if (field.length === 4 && field.toLowerCase() === "host") hosts++;
  }
  if (hosts > 1)
    return errorResponse(
      400,
      "The request has more than one Host header; send exactly one (RFC 9112 §3.2).",
      {
        connection: "close",
      },
    );
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
    return errorResponse(400, "The request has no Host header; HTTP/1.1 requires one (RFC 9112 §3.2).", {
      connection: "close",
    });
  return null;
}

function refuse(req: IncomingMessage, res: ServerResponse, response: WebhookResponse): void {
  send(res, response);
  if (!req.complete) req.resume();
}

function writeRaw(socket: Duplex, response: WebhookResponse): void {
  if (socket.writable) {
    const head = Object.entries(response.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.end(
      `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}\r\n${head}content-length: ${Buffer.byteLength(response.body)}\r\n\r\n${response.body}`,
    );
  }
  socket.once("error", () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}
