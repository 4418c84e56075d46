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

/**
 * True only when `JSON.stringify(text)` is `text` between two quotes because `text` is printable ASCII other than `"`
 * and `\` (ids, event types, header values). A hot path can then quote such text itself; `false` says only that the
 * fast path does not apply (some text outside this set is also written unchanged, e.g. `\x7f`). A regular
 * expression: V8 runs it as machine code, cheaper than a `charCodeAt` loop.
 *
 * @example
 * ```ts
 * isPlainJsonText("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"); // true
 * isPlainJsonText('say "hi"'); // false: JSON.stringify escapes the quotes
 * ```
 */
export function isPlainJsonText(text: string): boolean {
  return PLAIN_JSON_TEXT.test(text);
}

const PLAIN_JSON_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
