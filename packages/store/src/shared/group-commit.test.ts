import { describe, expect, it } from "vitest";
import { GroupCommitter } from "./group-commit.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("GroupCommitter", () => {
  it("hands everything submitted in one turn to one write, in order", async () => {
    const batches: number[][] = [];
    const gc = new GroupCommitter(
      (items: number[]) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
      { maxBatch: 100 },
    );
    const results = await Promise.all([1, 2, 3].map((i) => gc.submit(i)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
    await gc.submit(4);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it("splits at maxBatch", async () => {
    const sizes: number[] = [];
    const gc = new GroupCommitter(
      (items: number[]) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 4 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => gc.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it("rejects exactly the callers of a failed write", async () => {
    let calls = 0;
    const gc = new GroupCommitter(
      (items: string[]) => {
        calls++;
        if (calls === 1) throw new Error("disk full");
        return items;
      },
      { maxBatch: 100 },
    );
    const first = [gc.submit("a"), gc.submit("b")];
    const settled = await Promise.allSettled(first);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    await expect(gc.submit("c")).resolves.toBe("c");
  });

  it("collects submissions made while an async write is in flight into the next batch", async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const gc = new GroupCommitter(
      async (items: number[]) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items;
      },
      { maxBatch: 100 },
    );
    const a = gc.submit(1);
    await tick();
    const rest = [2, 3, 4].map((i) => gc.submit(i));
    await tick();
    expect(batches).toEqual([[1]]);
    release();
    await Promise.all([a, ...rest]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("drain() waits for every pending and in-flight write", async () => {
    let done = 0;
    const gc = new GroupCommitter(
      async (items: number[]) => {
        await new Promise((r) => setTimeout(r, 20));
        done += items.length;
        return items;
      },
      { maxBatch: 2 },
    );
    for (let i = 0; i < 5; i++) void gc.submit(i);
    await gc.drain();
    expect(done).toBe(5);
    await expect(gc.drain()).resolves.toBeUndefined();
  });
});
