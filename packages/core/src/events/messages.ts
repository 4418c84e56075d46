import { INT64_MAX, INT64_MIN } from "../json/int64-literal.js";
import { describeValue, shorten } from "./describe.js";

/** Where a message is about: the property's name (or `item 3`), whether it may be left out, an example value. */
export interface Place {
  readonly key: string;
  readonly optional: boolean;
  readonly example?: unknown;
}

const TYPE_PHRASES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean (true or false)",
  object: "a JSON object",
  array: "an array",
  null: "null",
};

/** `a string`, `an integer`, … for a JSON Schema type. */
export function typePhrase(type: string): string {
  return TYPE_PHRASES[type] ?? `a ${type}`;
}

/** `, e.g. "name": "Monstera"` from the place's example, or nothing. */
function eg(place: Place): string {
  if (place.example === undefined) return "";
  const value = typeof place.example === "bigint" ? String(place.example) : JSON.stringify(place.example);
  if (value === undefined || value.length > 60) return "";
  return place.key.startsWith("item ") ? `, e.g. ${value}` : `, e.g. ${JSON.stringify(place.key)}: ${value}`;
}

/**
 * The message for a value of the wrong JSON type (or a missing required one), saying what to send.
 *
 * @example
 * ```ts
 * wrongType({ key: "name", optional: false, example: "Monstera" }, "string", undefined);
 * // 'name is missing. Add name as a JSON string, e.g. "name": "Monstera".'
 * ```
 */
export function wrongType(place: Place, type: string, input: unknown): string {
  const what =
    type === "string"
      ? "a JSON string"
      : type === "integer" || type === "number"
        ? `a JSON ${type}`
        : typePhrase(type);
  if (input === undefined) return `${place.key} is missing. Add ${place.key} as ${what}${eg(place)}.`;
  const when = place.optional ? " when present" : "";
  const got = `${place.key} must be ${typePhrase(type)}${when}; got ${describeValue(input)}.`;
  if ((type === "integer" || type === "number") && typeof input === "string") {
    return `${got} Send it as a JSON number without quotes${eg(place)}.`;
  }
  if (place.optional) return `${got} Send ${typePhrase(type)} or leave ${place.key} out.`;
  return `${got} Send it as ${what}${eg(place)}.`;
}

/**
 * The message for a value outside an enum or const.
 *
 * @example
 * ```ts
 * notAllowed({ key: "status", optional: false }, ["sold", "reserved"], "lost");
 * // 'status must be one of "sold", "reserved"; got a string ("lost"). Send one of those values.'
 * ```
 */
export function notAllowed(place: Place, values: readonly unknown[], input: unknown): string {
  const shown = values.map((value) => shorten(JSON.stringify(value) ?? String(value))).join(", ");
  if (input === undefined) return `${place.key} is missing. Add ${place.key}: one of ${shown}.`;
  return `${place.key} must be ${values.length === 1 ? shown : `one of ${shown}`}; got ${describeValue(input)}. Send ${values.length === 1 ? "that value" : "one of those values"}.`;
}

/** An integer that is not one: `1.5`, or a literal a double would have made whole. */
export const notInteger = (key: string, shown: string) =>
  `${key} must be an integer; got ${shown}. Send a whole number.`;

/** An integer beyond the int64 range. */
export const beyondInt64 = (key: string, shown: string) =>
  `${key} ${shown} is outside the int64 range [${INT64_MIN}, ${INT64_MAX}]. Send a whole number that fits in a signed 64-bit integer.`;

/** An int64 beyond what a JavaScript number holds, refused by the safe mode rather than rounded. */
export const beyondSafe = (key: string, shown: string) =>
  `${key} ${shown} is beyond 2^53-1 (${Number.MAX_SAFE_INTEGER}), so a JavaScript number would round it; ` +
  `the safe mode rejects it rather than change it. Parse with { mode: "lossless" } (the default) to receive ` +
  `int64 values up to 2^63-1 exactly as bigint, or send ${key} within ±${Number.MAX_SAFE_INTEGER}.`;

/**
 * A number outside the range its `format` or `minimum`/`maximum` allows; `what` names what to send instead.
 *
 * @example
 * ```ts
 * outOfRange("height", "-1.5", "[0, ∞]", "number"); // "height -1.5 is outside [0, ∞]. Send a number in that range."
 * ```
 */
export const outOfRange = (key: string, shown: string, range: string, what = "whole number") =>
  `${key} ${shown} is outside ${range}. Send a ${what} in that range.`;

/**
 * The message for a value that breaks a size bound (`minLength`, `maxItems`, …).
 *
 * @example
 * ```ts
 * bound({ key: "tags", optional: true }, "at most 3 items"); // "tags must have at most 3 items. Send fewer or more to fit."
 * ```
 */
export function bound(place: Place, requirement: string): string {
  return `${place.key} must have ${requirement}. Send a value of that size.`;
}
