import { describe, expect, it } from "vitest";
import { batches } from "./batches.js";
import type { LineEvent } from "./event-lines.js";
import { readEventLines } from "./event-lines.js";

const event = (line: number, bytes: number): LineEvent => ({
  line,
  event: { payload: {}, type: "newPlant" },
  bytes,
});
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

describe("readEventLines", () => {
  it("reads plain events and envelopes by line, skips blank lines, and names every problem's line", () => {
    const text = [
      '\uFEFF{"id":9223372036854775807,"name":"Largest"}',
      "",
      '{"payload":{"id":2,"name":"Moss"},"type":"plantSold","idempotencyKey":"k2"}\r',
      "{not json",
      "[1]",
      '{"payload":{"id":6},"extra":1}',
      '{"payload":{"id":7},"idempotencyKey":" x"}',
      '{"id":8,"name":"Fern"}',
    ].join("\n");
    const { events, problems } = readEventLines(text, {
      defaultType: "newPlant",
      maxBytes: 1000,
      check: (e) => (e.payload.id === 8 ? "refused by the check" : undefined),
    });
    expect(events.map((e) => [e.line, e.event])).toEqual([
      [1, { payload: { id: 9223372036854775807n, name: "Largest" }, type: "newPlant" }],
      [3, { payload: { id: 2, name: "Moss" }, type: "plantSold", idempotencyKey: "k2" }],
    ]);
    expect(events[0]?.bytes).toBe(
      '{"payload":{"id":9223372036854775807,"name":"Largest"},"type":"newPlant"}'.length,
    );
    expect(problems.map((p) => p.line)).toEqual([4, 5, 6, 7, 8]);
    expect(problems[2]?.message).toContain("not extra");
    expect(problems[4]?.message).toBe("refused by the check");
    expect(readEventLines('{"id":1,"name":"x"}', { defaultType: "newPlant", maxBytes: 40 }).problems).toEqual(
      [{ line: 1, message: expect.stringContaining("a batch holds at most 27") }],
    );
  });
});
