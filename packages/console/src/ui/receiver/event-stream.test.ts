import { describe, expect, it } from "vitest";
import { dataOf, readEventStream } from "./event-stream.js";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe("the receiver's event stream", () => {
  it("gives each event's data, across chunk boundaries, and skips comments and error blocks", async () => {
    const seen: string[] = [];
    await readEventStream(
      streamOf(
        ': connected\n\nid: 1\ndata: {"seq":1}\n\nid: 2\nda',
        'ta: {"seq":2}\n\nevent: error\ndata: {"x":1}\n\n',
      ),
      (data) => seen.push(data),
    );
    expect(seen).toEqual(['{"seq":1}', '{"seq":2}']);
  });

  it("joins the data lines of one block", () => {
    expect(dataOf("data: {\ndata: }")).toBe("{\n}");
    expect(dataOf(": keep-alive")).toBeNull();
  });
});
