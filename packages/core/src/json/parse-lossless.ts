import { parse } from "lossless-json";
import { readInt64Literal } from "./int64-literal.js";

/**
 * Parses JSON like `JSON.parse`, except that integers in the int64 range beyond ±(2^53-1) become exact
 * `bigint`s instead of rounded numbers. Every other number is the `number` `JSON.parse` would give, and
 * the last of duplicate keys wins, as with `JSON.parse`.
 *
 * Throws `SyntaxError` on invalid JSON and `RangeError` when nesting exceeds the call stack (lossless-json
 * parses recursively; `JSON.parse` does not).
 *
 * @example
 * ```ts
 * parseJsonLossless('{"id": 9223372036854775807, "price": 1.5}'); // { id: 9223372036854775807n, price: 1.5 }
 * ```
 */
export function parseJsonLossless(text: string): unknown {
  return parse(text, null, {
    parseNumber: readNumber,
    onDuplicateKey: (duplicate) => duplicate.newValue,
  });
}

function readNumber(literal: string): number | bigint {
  const value = Number(literal);
  // Only an integer-valued double of 2^53 or more can stand for an int64 the double cannot hold.
  if (!Number.isInteger(value) || Number.isSafeInteger(value)) return value;
  const exact = readInt64Literal(literal);
  return exact?.kind === "int64" ? exact.value : value;
}
