/** The bounds of a signed 64-bit integer (OpenAPI `format: int64`). */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, 2^63-1 = 9223372036854775807. */
export const INT64_MAX = 2n ** 63n - 1n;

/** What a JSON number literal denotes, read exactly (decimal, no binary rounding). */
export type Int64Literal =
  | { kind: "int64"; value: bigint }
  | { kind: "beyond-int64" }
  | { kind: "not-integer" };

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
// 2^63 has 19 digits, so any integer with 20 or more is outside int64; stopping there also keeps
// `1e1000000000` from being expanded into a billion-digit bigint.
const MAX_INT64_DIGITS = 19;

/**
 * Reads a JSON number literal exactly, the way JSON Schema sees it: `1.0`, `1e3` and `-0` are integers
 * (1n, 1000n, 0n), `1.5` and `1e-400` are not, and `9223372036854775808` is an integer beyond int64.
 * Returns `undefined` when `literal` is not a JSON number.
 *
 * @example
 * ```ts
 * readInt64Literal("9007199254740993"); // { kind: "int64", value: 9007199254740993n }
 * readInt64Literal("12.50e1"); // { kind: "not-integer" }
 * readInt64Literal("1e19"); // { kind: "beyond-int64" }
 * ```
 */
export function readInt64Literal(literal: string): Int64Literal | undefined {
  const match = NUMBER_LITERAL.exec(literal);
  if (!match) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  const significand = `${whole}${fraction}`.replace(/^0+/, "");
  if (significand === "") return { kind: "int64", value: 0n };
  const digits = significand.replace(/0+$/, "");
  // The value is digits × 10^scale with a last digit that is not 0, so it is an integer iff scale >= 0.
  // A huge exponent makes `Number(exponent)` inexact, never of the wrong sign, and only the sign and the
  // size matter here.
  const scale = Number(exponent) - fraction.length + (significand.length - digits.length);
  if (scale < 0) return { kind: "not-integer" };
  if (digits.length + scale > MAX_INT64_DIGITS) return { kind: "beyond-int64" };
  const magnitude = BigInt(digits) * 10n ** BigInt(scale);
  const value = sign === "-" ? -magnitude : magnitude;
  return value < INT64_MIN || value > INT64_MAX ? { kind: "beyond-int64" } : { kind: "int64", value };
}
