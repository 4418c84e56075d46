import { PlantStoreError } from "./errors.js";

/**
 * Checks of option values handed to the package's factories, for callers in plain JavaScript or reading
 * `process.env`: each throws a `PlantStoreError` with code `invalid_option` naming the option, the accepted range
 * and what was given. A string is never echoed (it could be a misplaced secret); only its kind is named.
 *
 * @example
 * ```ts
 * const tolerance = numberOption("toleranceSeconds", options.toleranceSeconds, 300, { min: 0 });
 * ```
 */
export function numberOption(
  name: string,
  value: unknown,
  fallback: number,
  range: { min: number; max?: number; integer?: boolean; unit?: string },
): number {
  if (value === undefined) return fallback;
  const max = range.max ?? (range.integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE);
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value >= range.min &&
    value <= max &&
    (!range.integer || Number.isInteger(value));
  if (ok) return value;
  const kind = range.integer ? "an integer" : "a number";
  const upper = range.max === undefined ? `at least ${range.min}` : `from ${range.min} to ${range.max}`;
  const hint = typeof value === "string" ? " Convert it first, e.g. Number(process.env.VALUE)." : "";
  throw invalidOption(
    `${name} must be ${kind} ${upper}${range.unit ? ` ${range.unit}` : ""}; got ${describe(value)}.${hint}`,
  );
}

/**
 * Checks that an optional option is a function (`now`, `fetch`, `onEvent`, …); returns it or the fallback.
 *
 * @example
 * ```ts
 * const now = functionOption("now", options.now, Date.now);
 * ```
 */
export function functionOption<F>(name: string, value: unknown, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value === "function") return value as F;
  throw invalidOption(`${name} must be a function; got ${describe(value)}.`);
}

/**
 * Checks that an optional option is an object with the named methods (a dedup store, a logger); returns it.
 *
 * @example
 * ```ts
 * const dedup = objectOption<DedupStore>("dedup", options.dedup, ["has", "add"]);
 * ```
 */
export function objectOption<T>(name: string, value: unknown, methods: readonly string[]): T | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value === "object" &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function")
  ) {
    return value as T;
  }
  throw invalidOption(
    `${name} must be an object with the methods ${methods.map((m) => `${m}()`).join(" and ")}; got ${describe(value)}.`,
  );
}

/**
 * Checks that an optional option is a string (`realm`, `userAgent`), optionally one of a few values.
 *
 * @example
 * ```ts
 * const mode = stringOption("mode", options.mode, "safe", ["safe", "lossless"]);
 * ```
 */
export function stringOption<S extends string>(
  name: string,
  value: unknown,
  fallback: S,
  allowed?: readonly S[],
): S {
  if (value === undefined) return fallback;
  if (
    typeof value === "string" &&
    (allowed === undefined || (allowed as readonly string[]).includes(value))
  ) {
    return value as S;
  }
  throw invalidOption(
    allowed
      ? `${name} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}; got ${describe(value)}.`
      : `${name} must be a string; got ${describe(value)}.`,
  );
}

/**
 * Checks a body handed to `sign`, `signatureHeader`, `verify` or `parseNewPlant` from plain JavaScript: a string
 * (sent as UTF-8) or a `Uint8Array` (a `Buffer` is one) of the exact bytes; anything else throws a
 * `PlantStoreError` with code `invalid_body`.
 *
 * @example
 * ```ts
 * checkBody("sign", input.body);
 * ```
 */
export function checkBody(caller: string, body: unknown): asserts body is string | Uint8Array {
  if (typeof body === "string" || body instanceof Uint8Array) return;
  throw new PlantStoreError(
    "invalid_body",
    `${caller}: body must be a string or a Uint8Array (a Buffer is one) holding the exact bytes; got ${describe(body)}. Pass the raw body, not a parsed object; wrap an ArrayBuffer as new Uint8Array(buffer).`,
  );
}

/**
 * A `PlantStoreError` with code `invalid_option`.
 *
 * @example
 * ```ts
 * throw invalidOption("path must start with '/'.");
 * ```
 */
export function invalidOption(message: string): PlantStoreError {
  return new PlantStoreError("invalid_option", message);
}

/**
 * Names what a caller passed without echoing strings: `-1`, `NaN`, `a string`, `an object`, `null`.
 *
 * @example
 * ```ts
 * describe(-1); // "-1"
 * describe("300"); // "a string"
 * ```
 */
export function describe(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value === "" ? "an empty string" : "a string";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "Object" ? `an instance of ${name}` : "an object";
  }
  return value === undefined ? "undefined" : `a ${typeof value}`;
}
