import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkIdLiteral } from "./id-literal.js";

const check = (literal: string, mode: "safe" | "lossless" = "safe") => {
  const text = `{"id": ${literal}, "name": "x"}`;
  return checkIdLiteral(text, JSON.parse(text), mode);
};

describe("checkIdLiteral", () => {
  it("adds nothing for ordinary ids, so the common case never scans the text", () => {
    expect(check("42")).toBeUndefined();
    expect(check("-0")).toBeUndefined();
    expect(check("1e3")).toBeUndefined();
    expect(checkIdLiteral('{"id": "1"}', { id: "1" }, "safe")).toBeUndefined();
    expect(checkIdLiteral("[1]", [1], "safe")).toBeUndefined();
  });

  it("judges ids a double misrepresents by their literal", () => {
    expect(check("9007199254740993")).toEqual({ problem: expect.stringContaining("beyond 2^53-1") });
    expect(check("9007199254740993", "lossless")).toEqual({ exact: 9007199254740993n });
    expect(check("1.0000000000000001", "lossless")).toEqual({
      problem: expect.stringContaining("must be an integer"),
    });
    expect(check("9223372036854775808", "lossless")).toEqual({ problem: expect.stringContaining("int64") });
    expect(check("1.00000000000000000000")).toEqual({ exact: 1n });
  });

  // The reasoning behind skipping the scan: without 16 digits in a row and without `e-ddd`, a literal that is
  // not an integer never parses to an integer-valued double.
  it("never skips a literal that a double turns from a fraction into an integer", () => {
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^[1-9]\d{0,14}$/),
        fc.nat({ max: 15 }),
        fc.option(fc.integer({ min: -99, max: 99 })),
      )
      .map(([negative, digits, dot, exponent]) => {
        const at = Math.min(dot, digits.length - 1);
        const mantissa = at === 0 ? digits : `${digits.slice(0, at)}.${digits.slice(at)}`;
        return `${negative ? "-" : ""}${mantissa}${exponent === null ? "" : `e${exponent}`}`;
      })
      .filter((text) => !/(?:\d\.?){16}|[eE]-\d{3}/.test(text));
    fc.assert(
      fc.property(literal, (text) => {
        const [, sign, whole, fraction = "", exponent = "0"] = /^(-?)(\d+)(?:\.(\d+))?(?:e(-?\d+))?$/.exec(
          text,
        )!;
        const power = Number(exponent) - fraction.length;
        const mantissa = BigInt(`${sign}${whole}${fraction}`);
        const isInteger = power >= 0 || mantissa % 10n ** BigInt(-power) === 0n;
        if (!isInteger) expect(Number.isInteger(Number(text))).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });
});
