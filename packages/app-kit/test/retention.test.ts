import { describe, expect, it } from "vitest";
import { startRetention } from "../src/index.js";

describe("startRetention", () => {
  it("purges batch after batch while `more`, with the cut-off the retention gives", async () => {
    const calls: number[] = [];
    const results = [true, true, false];
    const retention = startRetention({
      purge: async (before) => {
        calls.push(before);
        return { more: results[calls.length - 1] ?? false, inboxEvents: 1 };
      },
      retentionMs: 1_000,
      now: () => 5_000,
    });
    await retention.run();
    expect(calls).toEqual([4_000, 4_000, 4_000]);
    await retention.stop();
  });

  it("keeps everything with retention 0: no purge ever runs", async () => {
    let calls = 0;
    const retention = startRetention({
      purge: async () => {
        calls++;
        return { more: false };
      },
      retentionMs: 0,
    });
    await retention.run();
    await retention.stop();
    expect(calls).toBe(0);
  });

  it("a failed purge is logged, not thrown, and the next run tries again", async () => {
    const warnings: unknown[] = [];
    let calls = 0;
    const retention = startRetention({
      purge: async () => {
        calls++;
        if (calls === 1) throw new Error("store down");
        return { more: false };
      },
      retentionMs: 1,
      logger: { warn: (o: unknown) => warnings.push(o), info: () => {} } as never,
    });
    await retention.run();
    await retention.run();
    expect(calls).toBe(2);
    expect(warnings).toEqual([{ error: "store down" }]);
    await retention.stop();
  });
});
