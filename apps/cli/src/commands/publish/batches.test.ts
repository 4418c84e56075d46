import { describe, expect, it } from "vitest";
import { batches } from "./batches.js";
import type { LineEvent } from "./event-lines.js";
import { progressBar } from "./progress.js";

const event = (line: number, bytes: number): LineEvent => ({ line, event: { payload: {} }, bytes });
const bodyBytes = (group: LineEvent[]) =>
  '{"events":[]}'.length + group.reduce((n, e) => n + e.bytes, 0) + group.length - 1;

describe("batches", () => {
  it("keeps the order and cuts at the event count", () => {
    const groups = batches(
      Array.from({ length: 7 }, (_, i) => event(i + 1, 10)),
      3,
      1_000,
    );
    expect(groups.map((g) => g.map((e) => e.line))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it("keeps every body within the byte cap, commas and frame included", () => {
    const events = Array.from({ length: 50 }, (_, i) => event(i + 1, 10 + (i % 7) * 13));
    const groups = batches(events, 1_000, 200);
    expect(groups.flat()).toEqual(events);
    for (const group of groups) expect(bodyBytes(group)).toBeLessThanOrEqual(200);
    // Each cut was needed: the next event would not have fitted.
    for (let i = 0; i < groups.length - 1; i++) {
      expect(
        bodyBytes([...(groups[i] as LineEvent[]), (groups[i + 1] as LineEvent[])[0] as LineEvent]),
      ).toBeGreaterThan(200);
    }
  });
});

describe("progressBar", () => {
  it("draws on a terminal and writes nothing elsewhere", () => {
    const written: string[] = [];
    const stream = (isTTY: boolean) =>
      ({ isTTY, write: (text: string) => written.push(text) }) as unknown as NodeJS.WriteStream;
    const silent = progressBar(10, stream(false));
    silent.update(5);
    silent.end();
    expect(written).toEqual([]);
    const bar = progressBar(10, stream(true));
    bar.update(5);
    bar.end();
    expect(written).toEqual([`\r[${"#".repeat(15)}${"-".repeat(15)}] 5/10 events`, "\n"]);
  });
});
