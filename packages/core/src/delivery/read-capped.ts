/**
 * Reads at most `maxBytes` of a response body as UTF-8 and cancels the rest of the stream, so a huge
 * or endless body is never buffered. A character cut by the cap is dropped rather than mangled.
 *
 * @example
 * ```ts
 * import { readCapped } from "./read-capped.js";
 * await readCapped(new Response("x".repeat(10_000)), 4096); // 4096 × "x"
 * ```
 */
export function readCapped(response: Response, maxBytes: number): Promise<string> {
  const body = response.body;
  if (body === null) return Promise.resolve("");
  const reader = body.getReader();
  return readCappedChunks(
    {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      // Cancelling releases the connection instead of leaving the rest of the body pending on it.
      return: async () => {
        await reader.cancel().catch(() => {});
        return { done: true, value: undefined };
      },
    },
    maxBytes,
  );
}

/**
 * {@link readCapped} over any source of byte chunks (a Node stream's or undici body's async iterator, a stream
 * reader): reads at most `maxBytes`, decodes them as UTF-8 (a character cut by the cap is dropped), then calls
 * `return()` so the source stops and releases what it holds.
 *
 * @example
 * ```ts
 * import { request } from "undici";
 * const { body } = await request("http://127.0.0.1:4000/");
 * await readCappedChunks(body[Symbol.asyncIterator](), 4096);
 * ```
 */
export async function readCappedChunks(
  chunks: AsyncIterator<Uint8Array, unknown>,
  maxBytes: number,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let remaining = Math.max(0, Math.floor(maxBytes));
  let finished = false;
  try {
    while (remaining > 0) {
      const { done, value } = await chunks.next();
      if (done) {
        finished = true;
        return text + decoder.decode();
      }
      const kept = value.byteLength > remaining ? value.subarray(0, remaining) : value;
      remaining -= kept.byteLength;
      text += decoder.decode(kept, { stream: true });
    }
    return text;
  } finally {
    if (!finished) await chunks.return?.()?.catch(() => {});
  }
}
