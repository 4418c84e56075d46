import { stringify } from "lossless-json";

/**
 * `JSON.stringify` that also writes `bigint`s, as bare integer literals with every digit
 * (`9223372036854775807`, never `"9223372036854775807"` or `9223372036854776000`). For values without
 * bigints the output equals `JSON.stringify`'s. Throws `TypeError` when `value` has no JSON form
 * (`undefined`, a function, a symbol).
 *
 * @example
 * ```ts
 * stringifyJson({ id: 9007199254740993n, name: "Fern" }); // '{"id":9007199254740993,"name":"Fern"}'
 * ```
 */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError(`A value of type ${typeof value} has no JSON representation.`);
  return text;
}
