import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { WebhookResponse } from "@plant-store/core";

/**
 * A whole HTTP/1.1 response as text, for a socket no `ServerResponse` owns (a `clientError`, a `CONNECT`).
 *
 * @example
 * ```ts
 * socket.end(rawAnswer(errorResponse(405, "Not a proxy.", { connection: "close" })));
 * ```
 */
export function rawAnswer(response: Pick<WebhookResponse, "status" | "headers" | "body">): string {
  const head = Object.entries(response.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}\r\n${head}` +
    `content-length: ${Buffer.byteLength(response.body)}\r\n\r\n${response.body}`
  );
}

/**
 * Writes a response onto a bare socket and closes it; a client that does not read it is cut off after a second.
 *
 * @example
 * ```ts
 * server.on("connect", (_req, socket) => writeRaw(socket, refusal));
 * ```
 */
export function writeRaw(socket: Duplex, response: WebhookResponse): void {
  if (socket.writable) socket.end(rawAnswer(response));
  socket.once("error", () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}
