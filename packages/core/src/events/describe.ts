import { isNumberLiteral } from "./number-literal.js";

const MAX_SHOWN = 40;

/**
 * Names the JSON type of a value for an error message, quoting short strings:
 * `an array`, `null`, `a string ("1")`, `the number 1.5`.
 *
 * @example
 * ```ts
 * describeValue([1]); // "an array"
 * describeValue("1"); // 'a string ("1")'
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (isNumberLiteral(value)) return `the number ${shorten(value.literal)}`;
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `a string (${shorten(JSON.stringify(value))})`;
    case "number":
    case "bigint":
      return `the number ${shorten(String(value))}`;
    case "boolean":
      return `the boolean ${value}`;
    case "undefined":
      return "nothing";
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Shortens text for a message; a number literal of a megabyte should not become a megabyte of message.
 *
 * @example
 * ```ts
 * shorten("1".repeat(100)); // "11111111111111111111…1111111111 (100 characters)"
 * ```
 */
export function shorten(text: string): string {
  if (text.length <= MAX_SHOWN) return text;
  return `${text.slice(0, MAX_SHOWN / 2)}…${text.slice(-MAX_SHOWN / 4)} (${text.length} characters)`;
}
