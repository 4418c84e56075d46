import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readCapped, readCappedChunks } from "./read-capped.js";

/** A body of `chunks` chunks of `size` bytes that counts how many were pulled and whether it was cancelled. */
function countingBody(chunks: number, size: number, byte = 0x61) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulled === chunks) return controller.close();
        state.pulled += 1;
        controller.enqueue(new Uint8Array(size).fill(byte));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { response: new Response(stream), state };
}

describe("readCapped", () => {
  it("reads only the chunks it needs and cancels the rest", async () => {
    const { response, state } = countingBody(10_000, 1000);
    const text = await readCapped(response, 4096);
    expect(text).toBe("a".repeat(4096));
    expect(state.pulled).toBeLessThanOrEqual(6);
    expect(state.cancelled).toBe(true);
  });

  it("returns short bodies whole", async () => {
    expect(await readCapped(new Response('{"ok":true}'), 4096)).toBe('{"ok":true}');
    expect(await readCapped(new Response(null, { status: 204 }), 4096)).toBe("");
  });

  it("reads nothing with a cap of 0", async () => {
    const { response, state } = countingBody(10, 10);
    expect(await readCapped(response, 0)).toBe("");
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
  });

  it("drops a character cut by the cap instead of mangling it", async () => {
    // "é" is 2 bytes in UTF-8: a cap of 3 ends in the middle of the second one.
    expect(await readCapped(new Response("éé"), 3)).toBe("é");
    expect(await readCapped(new Response("éé"), 4)).toBe("éé");
  });
});

describe("readCappedChunks", () => {
  it("stops a Node stream at the cap and destroys it", async () => {
    let pushed = 0;
    const stream = new Readable({
      highWaterMark: 0,
      read() {
        pushed++;
        this.push(Buffer.alloc(1000, 0x62));
      },
    });
    const text = await readCappedChunks(stream[Symbol.asyncIterator](), 2500);
    expect(text).toBe("b".repeat(2500));
    expect(pushed).toBeLessThanOrEqual(5);
    expect(stream.destroyed).toBe(true);
  });

  it("returns a short source whole without cancelling it, and drops a cut character", async () => {
    let returned = false;
    const chunks = [new TextEncoder().encode("ok é"), new TextEncoder().encode("é")];
    const source: AsyncIterator<Uint8Array> = {
      next: async () =>
        chunks.length > 0 ? { done: false, value: chunks.shift()! } : { done: true, value: undefined },
      return: async () => {
        returned = true;
        return { done: true, value: undefined };
      },
    };
    expect(await readCappedChunks(source, 100)).toBe("ok éé");
    expect(returned).toBe(false);
    expect(await readCappedChunks([new TextEncoder().encode("éé")][Symbol.iterator]() as never, 3)).toBe("é");
  });
});
