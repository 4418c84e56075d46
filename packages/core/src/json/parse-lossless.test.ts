import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonLossless } from "./parse-lossless.js";

describe("parseJsonLossless", () => {
  it("keeps every digit of int64 integers beyond 2^53, anywhere in the document", () => {
    expect(
      parseJsonLossless('{"id": 9223372036854775807, "more": [-9007199254740993, 9.007199254740993e15]}'),
    ).toEqual({
      id: 9223372036854775807n,
      more: [-9007199254740993n, 9007199254740993n],
    });
  });

  it("gives every other number as JSON.parse does", () => {
    const text =
      "[1, -0, 1.5, 1e3, 1.0000000000000001, 9223372036854775808, 1e400, 9007199254740993.5, 1e-400]";
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
    expect(Object.is((parseJsonLossless("[-0]") as number[])[0], -0)).toBe(true);
  });

  it("keeps the last of duplicate keys and an own __proto__ key, as JSON.parse does", () => {
    const text = '{"a": 1, "a": 2, "__proto__": {"polluted": true}}';
    const value = parseJsonLossless(text) as Record<string, unknown>;
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["a", "__proto__"]);
  });

  it("accepts and refuses exactly what JSON.parse does, with equal values for JSON without big integers", () => {
    const jsonish = fc.oneof(
      fc.json(),
      fc
        .json()
        .chain((text) =>
          fc
            .tuple(fc.nat({ max: text.length }), fc.nat({ max: 3 }), fc.string({ maxLength: 3 }))
            .map(([at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut)),
        ),
      fc.string({ unit: fc.constantFrom(...'{}[]":,0123456789.eE+-tnrufals \\') }),
    );
    fc.assert(
      fc.property(jsonish, (text) => {
        let expected: unknown;
        let valid = true;
        try {
          expected = JSON.parse(text);
        } catch {
          valid = false;
        }
        if (!valid) expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
        else if (!/\d{16}/.test(text)) expect(parseJsonLossless(text)).toEqual(expected);
        else parseJsonLossless(text);
      }),
      { numRuns: 3000 },
    );
  });

  it("throws RangeError where its recursion runs out of stack", () => {
    expect(() => parseJsonLossless(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toThrow(RangeError);
  });
});
