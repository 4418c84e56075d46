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
export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let remaining = Math.max(0, Math.floor(maxBytes));
  try {
    while (remaining > 0) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      const kept = value.byteLength > remaining ? value.subarray(0, remaining) : value;
      remaining -= kept.byteLength;
      text += decoder.decode(kept, { stream: true });
    }
    return text;
  } finally {
    // Cancelling releases the connection instead of leaving the rest of the body pending on it.
    await reader.cancel().catch(() => {});
  }
}
