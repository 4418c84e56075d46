import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INT64_MAX, INT64_MIN, readInt64Literal } from "./int64-literal.js";

/** Exact rational reading of a literal (mantissa × 10^exponent), independent of the code under test. */
function oracle(literal: string) {
  const [, sign, whole, fraction = "", exponent = "0"] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(
    literal,
  )!;
  const mantissa = BigInt(`${sign}${whole}${fraction}`);
  const power = Number(exponent) - fraction.length;
  let value: bigint;
  if (power >= 0) value = mantissa * 10n ** BigInt(power);
  else {
    const divisor = 10n ** BigInt(-power);
    if (mantissa % divisor !== 0n) return { kind: "not-integer" };
    value = mantissa / divisor;
  }
  return value < INT64_MIN || value > INT64_MAX ? { kind: "beyond-int64" } : { kind: "int64", value };
}

describe("readInt64Literal", () => {
  it.each([
    ["0", 0n],
    ["-0", 0n],
    ["-0.0e7", 0n],
    ["1.0", 1n],
    ["1e3", 1000n],
    ["1E+3", 1000n],
    ["100e-2", 1n],
    ["0.5e1", 5n],
    ["9007199254740993", 9007199254740993n],
    ["9223372036854775807", INT64_MAX],
    ["-9223372036854775808", INT64_MIN],
    ["9.223372036854775807e18", INT64_MAX],
    ["0000000000000000000000000000001", 1n],
  ])("reads %s as the integer %s", (literal, value) => {
    expect(readInt64Literal(literal)).toEqual({ kind: "int64", value });
  });

  it.each([
    "1.5",
    "1.0000000000000001",
    "1e-400",
    "12.5e0",
    "9007199254740993.5",
    "0.1e-1000000000000000000000",
  ])("reads %s as not an integer", (literal) => {
    expect(readInt64Literal(literal)).toEqual({ kind: "not-integer" });
  });

  it.each([
    "9223372036854775808",
    "-9223372036854775809",
    "1e19",
    "1e400",
    "1e1000000000",
    "1e99999999999999999999",
  ])("reads %s as beyond int64 without expanding it", (literal) => {
    expect(readInt64Literal(literal)).toEqual({ kind: "beyond-int64" });
  });

  it.each(["", "+1", "01.", ".5", "1.", "1e", "NaN", "Infinity", "0x10", " 1"])(
    "refuses %j, not a JSON number",
    (text) => {
      expect(readInt64Literal(text)).toBeUndefined();
    },
  );

  it("agrees with exact rational arithmetic", () => {
    const digits = fc.oneof(
      fc.stringMatching(/^\d{1,25}$/),
      fc.constantFrom(
        "9007199254740993",
        "9223372036854775807",
        "9223372036854775808",
        "92233720368547758070",
      ),
    );
    const literal = fc
      .tuple(
        fc.boolean(),
        digits,
        fc.option(fc.stringMatching(/^\d{1,20}$/)),
        fc.option(
          fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 45 })),
        ),
      )
      .map(
        ([negative, whole, fraction, exponent]) =>
          `${negative ? "-" : ""}${whole}${fraction === null ? "" : `.${fraction}`}${exponent === null ? "" : exponent.join("")}`,
      );
    fc.assert(
      fc.property(literal, (text) => {
        expect(readInt64Literal(text)).toEqual(oracle(text));
      }),
      { numRuns: 5000 },
    );
  });
});
