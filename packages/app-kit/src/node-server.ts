import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errorResponse, type WebhookResponse } from "@plant-store/core";
import { send } from "@plant-store/core/node";
import { createClientErrorAnswer } from "./client-error.js";
import { writeRaw } from "./raw-answer.js";
import { refuseHead } from "./refuse-head.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./server-timeouts.js";

/** Options of {@link createNodeServer}. */
export interface NodeServerOptions {
  /** Time allowed to receive a request's headers (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number | undefined;
  /** Time allowed for a whole request, body included. Default 30 s. */
  requestTimeoutMs?: number | undefined;
  /** Idle time a keep-alive connection stays open. Default 5 s. */
  keepAliveTimeoutMs?: number | undefined;
  /**
   * For a request that sent `Expect: 100-continue` (its head already passed the Host checks): answer or invite the
   * body, and return whether the request is then served as usual. Default: `100 Continue` is sent, it is served.
   */
  expectContinue?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * An `http.Server` whose every answer is the contract's `{ error, message }` JSON, including the ones node:http
 * would write itself: an unparsable request or a slow client (400/431/408), an HTTP/1.1 request without `Host` or
 * with two (400, RFC 9112 §3.2), an `Expect` other than `100-continue` (417), `CONNECT` (405). The header and
 * request timeouts are checked every second (or sooner) rather than on node's 30 s default sweep, so a slow client
 * cannot hold a connection long past its limit. Both apps serve on it (the sender through Fastify's `serverFactory`).
 *
 * @example
 * ```ts
 * const server = createNodeServer((req, res) => res.end("ok"), { headersTimeoutMs: 10_000 });
 * server.listen(4000);
 * ```
 */
export function createNodeServer(listener: Listener, options: NodeServerOptions = {}): Server {
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      // Checked here instead, so a missing Host is answered as JSON (node's own answer is an empty 400).
      requireHostHeader: false,
      connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
    },
    (req, res) => {
      const refusal = refuseHead(req);
      if (refusal) return refuse(req, res, refusal);
      listener(req, res);
    },
  );
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on("clientError", createClientErrorAnswer());
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) =>
    answerContinue(req, res, listener, options.expectContinue),
  );
  server.on("checkExpectation", refuseExpectation);
  server.on("connect", refuseConnect);
  return server;
}

/** Half the shorter timeout, between 10 ms and 1 s: a timed-out request is found within half its limit. */
function checkingInterval(headersTimeout: number, requestTimeout: number): number {
  return Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout || headersTimeout) / 2)),
  );
}

function answerContinue(
  req: IncomingMessage,
  res: ServerResponse,
  listener: Listener,
  expectContinue: NodeServerOptions["expectContinue"],
): void {
  const refusal = refuseHead(req);
  // Not invited, the body will not come: the refusal ends the connection.
  if (refusal) {
    send(res, refusal);
    return;
  }
  if (expectContinue) {
    if (expectContinue(req, res)) listener(req, res);
    return;
  }
  res.writeContinue();
  listener(req, res);
}

function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  const expectation = String(req.headers.expect).slice(0, 100);
  const message = `Expect: ${expectation} cannot be met; the only expectation served is 100-continue. Send the request without it.`;
  refuse(req, res, errorResponse(417, message, { connection: "close" }));
}

function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  const answer = errorResponse(405, "CONNECT is not served here: this is not a proxy.", {
    allow: "GET, HEAD, POST",
    connection: "close",
  });
  writeRaw(socket, answer);
}

function refuse(req: IncomingMessage, res: ServerResponse, response: WebhookResponse): void {
  send(res, response);
  if (!req.complete) req.resume();
}
