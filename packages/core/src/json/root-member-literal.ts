const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The source text of the number that the root object's member `key` holds, exactly as written (before any
 * binary rounding), or `undefined` when that member is absent or not a number. Like `JSON.parse`, the last
 * of duplicate members wins, and keys are compared after unescaping (`"\u0069d"` is `"id"`).
 *
 * `text` must already be known to be valid JSON: this is a scanner, not a validator. It is iterative, so it
 * copes with any nesting depth `JSON.parse` accepts.
 *
 * @example
 * ```ts
 * rootMemberLiteral('{"id": 9007199254740993, "name": "x"}', "id"); // "9007199254740993"
 * rootMemberLiteral('{"x": {"id": 1}, "id": 1.0}', "id"); // "1.0"
 * ```
 */
export function rootMemberLiteral(text: string, key: string): string | undefined {
  let depth = 0;
  let rootIsObject = false;
  let expectKey = false;
  let currentKey: string | undefined;
  let literal: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (depth === 1 && rootIsObject && expectKey) {
        currentKey = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        expectKey = false;
      }
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
      if (depth === 1) {
        rootIsObject = code === 0x7b;
        expectKey = rootIsObject;
      }
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
    } else if (depth === 1 && rootIsObject) {
      if (code === 0x2c /* , */) expectKey = true;
      else if (code === 0x3a /* : */ && currentKey === key) {
        literal = numberAt(text, i + 1);
      }
    }
  }
  return literal;
}

/** The number literal starting at `from` after optional whitespace, in text known to be valid JSON. */
function numberAt(text: string, from: number): string | undefined {
  let start = from;
  while (start < text.length && " \t\n\r".includes(text.charAt(start))) start++;
  let end = start;
  while (end < text.length && "0123456789-+.eE".includes(text.charAt(end))) end++;
  const first = text.charCodeAt(start);
  return first === 0x2d || (first >= 0x30 && first <= 0x39) ? text.slice(start, end) : undefined;
}
