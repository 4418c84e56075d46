// Server-sent events as the receiver's /events/stream writes them: blocks split by a blank line, each with `data:`
// lines, and an `event: error` block when the stream fails on the server (that one carries no stored event).

/**
 * The data of a server-sent event block, or `null` when it has none or is an `event: error` block.
 *
 * @example
 * ```ts
 * dataOf('id: 3\ndata: {"seq":3}'); // '{"seq":3}'
 * ```
 */
export function dataOf(block: string): string | null {
  const lines = block.split("\n");
  const data = lines
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
    .join("\n");
  return data && !lines.includes("event: error") ? data : null;
}

/**
 * Reads a server-sent event stream to its end, calling `onData` with each event's data.
 *
 * @example
 * ```ts
 * await readEventStream(response.body, (data) => show(JSON.parse(data)));
 * ```
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, onData: (data: string) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = dataOf(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (data !== null) onData(data);
      end = buffer.indexOf("\n\n");
    }
  }
}
