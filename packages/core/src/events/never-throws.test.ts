import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseNewPlant } from "./parse.js";
import type { ParseResult } from "./parse-event.js";

function wellFormed(result: ParseResult<unknown>) {
  if (result.ok) return;
  expect(["json", "schema"]).toContain(result.kind);
  expect(result.issues.length).toBeGreaterThan(0);
  expect(result.message.length).toBeGreaterThan(0);
  for (const issue of result.issues) expect(issue.pointer === "" || issue.pointer.startsWith("/")).toBe(true);
}

const modes = [undefined, { mode: "safe" as const }, { mode: "lossless" as const }];

describe("parseNewPlant never throws", () => {
  it("for any string", () => {
    const nearlyAPlant = fc
      .tuple(fc.json(), fc.nat(), fc.string({ maxLength: 4 }))
      .map(
        ([json, at, noise]) =>
          `{"id": ${at % 3 === 0 ? "9".repeat(at % 40) : at}, "name": "x", "x": ${json}}${noise}`,
      );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.json(), nearlyAPlant), (raw) => {
        for (const options of modes) wellFormed(parseNewPlant(raw, options));
      }),
      { numRuns: 3000 },
    );
  });

  it("for any bytes", () => {
    const encodedJson = fc.json().map((text) => new TextEncoder().encode(text));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), encodedJson), (raw) => {
        for (const options of modes) wellFormed(parseNewPlant(raw, options));
      }),
      { numRuns: 3000 },
    );
  });

  it("for hostile shapes: deep nesting, huge literals, many keys", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const hostile = [
      deep,
      `{"id": 1, "name": "x", "deep": ${deep}}`,
      `{"id": 1${"0".repeat(100_000)}, "name": "x"}`,
      `{"id": 1e${"9".repeat(1000)}, "name": "x"}`,
      `{"id": 0.${"0".repeat(100_000)}1, "name": "x"}`,
      `{${Array.from({ length: 10_000 }, (_, i) => `"k${i}": ${i}`).join(",")}, "id": 1, "name": "x"}`,
      "\uFEFF",
      "\uFEFF\uFEFF{}",
    ];
    for (const raw of hostile) for (const options of modes) wellFormed(parseNewPlant(raw, options));
    const huge = parseNewPlant(`{"id": 1${"0".repeat(100_000)}, "name": "x"}`, { mode: "safe" });
    expect(!huge.ok && huge.message.length).toBeLessThan(1000);
  });
});
