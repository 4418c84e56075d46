import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errorResponse } from "@plant-store/core";
import { rawAnswer } from "./raw-answer.js";

/** Sockets whose refusal waits for the response to an earlier request on them. */
type PendingSocket = Duplex & { _httpMessage?: ServerResponse | null };

/**
 * A `clientError` listener answering what node:http cannot parse (malformed or oversized headers, a request that
 * took too long) in the contract's shape, `{ error, message }` as JSON, instead of node's empty 400. Like node's own
 * handler it writes only when no response has started on the socket, then closes it; while an earlier request on the
 * connection is still being answered, the refusal waits for that response.
 *
 * @example
 * ```ts
 * server.on("clientError", createClientErrorAnswer());
 * ```
 */
export function createClientErrorAnswer(): (error: Error & { code?: string }, socket: Duplex) => void {
  const deferred = new WeakSet<Duplex>();
  const answer = (error: Error & { code?: string }, socket: Duplex): void => {
    const pending = (socket as PendingSocket)._httpMessage;
    if (
      error.code !== "ECONNRESET" &&
      pending?.req.complete &&
      !pending.writableFinished &&
      !socket.destroyed
    ) {
      deferAnswer(deferred, pending, socket, () => answer(error, socket));
      return;
    }
    if (error.code !== "ECONNRESET" && socket.writable && !pending?.headersSent) {
      socket.write(rawAnswer(clientErrorResponse(error.code)));
    }
    socket.destroy();
  };
  return answer;
}

/**
 * A request before the malformed one (pipelined on this connection) arrived whole and is still being answered,
 * perhaps after it was stored: its response goes first, as RFC 9112 §9.3.2 orders them, then the refusal.
 * Answering at once would put the 400 in the stored request's place, and the sender would count a stored event as
 * refused. When the pending request is itself the one that failed (its body too slow, or broken chunk framing),
 * nothing else will ever answer it: the refusal is its answer, now.
 */
function deferAnswer(
  deferred: WeakSet<Duplex>,
  pending: ServerResponse,
  socket: Duplex,
  answer: () => void,
): void {
  if (deferred.has(socket)) return;
  deferred.add(socket);
  pending.once("finish", () => {
    deferred.delete(socket);
    setImmediate(answer); // after node assigned the next queued response
  });
  pending.once("close", () => {
    if (!pending.writableFinished) socket.destroy();
  });
}

function clientErrorResponse(code: string | undefined) {
  const [status, message] =
    code === "HPE_HEADER_OVERFLOW"
      ? [431, "The request headers are too large."]
      : code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "The request did not arrive in time. Send it again, without pausing."]
        : [400, "The request is not valid HTTP/1.1 (malformed request line, header or body framing)."];
  return errorResponse(status as number, message as string, { connection: "close" });
}
