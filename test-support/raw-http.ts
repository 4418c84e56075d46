// A request written byte for byte on a raw socket: what HTTP clients refuse to send or merge (two Authorization
// field lines, an absolute-form target). Shared by the core adapter tests and the app suites (not published).
import { connect } from "node:net";

/** Writes `method target` with `headerLines` as given (duplicates kept) and `body`; resolves with the raw answer. */
export async function rawRequest(
  base: string,
  method: string,
  target: string,
  headerLines: readonly string[],
  body = "",
): Promise<{ raw: string; status: number; body: string }> {
  const socket = connect(Number(new URL(base).port), "127.0.0.1");
  socket.end(
    [
      `${method} ${target} HTTP/1.1`,
      "host: x",
      ...headerLines,
      ...(body === "" ? [] : [`content-length: ${Buffer.byteLength(body)}`]),
      "connection: close",
      "",
      body,
    ].join("\r\n"),
  );
  let raw = "";
  for await (const chunk of socket) raw += chunk;
  const split = raw.indexOf("\r\n\r\n");
  return { raw, status: Number(raw.split(" ")[1]), body: split === -1 ? "" : raw.slice(split + 4) };
}

/**
 * Writes `text` exactly as given (parts separated by pauses of `pauseMs` when it is an array) and resolves with
 * everything the server answered once it closed the connection, and how long that took.
 */
export async function rawExchange(
  base: string,
  text: string | readonly (string | number)[],
): Promise<{ raw: string; status: number; json: unknown; ms: number }> {
  const started = performance.now();
  const socket = connect(Number(new URL(base).port), "127.0.0.1");
  socket.setEncoding("latin1");
  let raw = "";
  socket.on("data", (chunk: string) => {
    raw += chunk;
  });
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.on("close", resolve));
  for (const part of typeof text === "string" ? [text] : text) {
    if (typeof part === "number") await new Promise((r) => setTimeout(r, part));
    else if (!socket.destroyed) socket.write(part);
  }
  await closed;
  const split = raw.indexOf("\r\n\r\n");
  let json: unknown = null;
  try {
    json = JSON.parse(raw.slice(split + 4));
  } catch {
    // not JSON: the test's assertion on `json` says so
  }
  return { raw, status: Number(raw.split(" ")[1]), json, ms: performance.now() - started };
}

/**
 * A client that keeps writing: sends `head` then `bodyBytes` of body in 64 KiB writes without waiting for an answer
 * (as a sender that streams its upload does), and resolves with what the server answered once the connection
 * ended — or `reset: true` when it was reset, which can discard an answer not yet read.
 */
export async function keepWriting(
  base: string,
  head: string,
  bodyBytes: number,
): Promise<{ raw: string; status: number; reset: boolean; written: number }> {
  const socket = connect(Number(new URL(base).port), "127.0.0.1");
  socket.setEncoding("latin1");
  let raw = "";
  let reset = false;
  socket.on("data", (chunk: string) => {
    raw += chunk;
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ECONNRESET" || error.code === "EPIPE") reset = true;
  });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  socket.write(head);
  while (written < bodyBytes && !socket.destroyed) {
    const part = chunk.subarray(0, Math.min(chunk.length, bodyBytes - written));
    written += part.length;
    if (!socket.write(part))
      await new Promise((resolve) => {
        socket.once("drain", resolve);
        socket.once("close", resolve);
      });
  }
  await closed;
  return { raw, status: Number(raw.split(" ")[1]), reset, written };
}
