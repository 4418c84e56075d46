import type { IncomingMessage } from "node:http";

/** How long, and how many bytes of an unread body, a connection is drained for after a refusal that closes it. */
export const LINGER = { ms: 5_000, bytes: 16 * 1024 * 1024 } as const;

/**
 * A lingering close, as nginx does it: after a refusal that closes the connection (a 413) while the client is still
 * sending its body, our side is shut (FIN after the answer) and what still arrives is read and discarded until the
 * client is done — its body ends or it closes — for at most {@link LINGER}; then the socket is closed.
 * Closing at once with unread bytes makes the kernel reset the connection, and a reset can discard the answer before
 * the client read it: the client would see a connection error (and retry) instead of the refusal.
 *
 * @example
 * ```ts
 * handleNodeRequest(handler, req, res, { drainRefused: lingerAfterRefusal });
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
