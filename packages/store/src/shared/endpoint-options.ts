import { targetHeadersProblem } from "@plant-store/core";
import { StoreInputError } from "../errors.js";

/** Most attempts per second a rate limit may allow; the least is one per hour. */
export const MAX_RATE_LIMIT = 10_000;
const MIN_RATE_LIMIT = 1 / 3600;

/**
 * A numeric endpoint option: `null` (or absent) for none, else a number from `min` to `max` (a whole one when
 * `integer`); `invalid_<what>` otherwise.
 *
 * @example
 * ```ts
 * checkNumber(5, "maxInFlight", 1, 1000, true); // 5
 * ```
 */
export function checkNumber(
  value: unknown,
  what: string,
  min: number,
  max: number,
  integer: boolean,
): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new StoreInputError(`invalid_${what}`, `${what} must be a number from ${min} to ${max}, or null.`);
  }
  if (integer && !Number.isInteger(value)) {
    throw new StoreInputError(`invalid_${what}`, `${what} must be a whole number, or null.`);
  }
  return value;
}

/**
 * A target's rate limit (attempts started per second, across every process on the database), or `null` for none.
 *
 * @example
 * ```ts
 * checkRateLimit(5); // 5
 * checkRateLimit(0); // throws StoreInputError, code "invalid_rateLimit"
 * ```
 */
export function checkRateLimit(value: unknown): number | null {
  return checkNumber(value, "rateLimit", MIN_RATE_LIMIT, MAX_RATE_LIMIT, false);
}

/**
 * A target's extra headers, names lower-cased; `null`/absent is none. Core's rule judges them
 * (`targetHeadersProblem`); `bearer`: the target sends a bearer token of its own, so `authorization` is refused too.
 *
 * @example
 * ```ts
 * checkTargetHeaders({ "X-Tenant": "a" }, true); // { "x-tenant": "a" }
 * checkTargetHeaders({ "webhook-id": "x" }, true); // throws StoreInputError, code "invalid_headers"
 * ```
 */
export function checkTargetHeaders(value: unknown, bearer: boolean): Record<string, string> {
  if (value === null || value === undefined) return {};
  const problem = targetHeadersProblem(value, { bearer });
  if (problem !== undefined) throw new StoreInputError("invalid_headers", problem);
  const headers: Record<string, string> = {};
  for (const [name, field] of Object.entries(value as Record<string, string>))
    headers[name.toLowerCase()] = field;
  return headers;
}

/** The `headers` column's value: JSON text, or `null` when there are none (the claim then sends none). */
export const headersColumn = (headers: Readonly<Record<string, string>>): string | null =>
  Object.keys(headers).length === 0 ? null : JSON.stringify(headers);

/** The headers a row holds (SQLite: JSON text; pg: jsonb), `{}` for none. */
export const headersOf = (
  value: string | Record<string, string> | null | undefined,
): Record<string, string> =>
  typeof value === "string" ? (JSON.parse(value) as Record<string, string>) : (value ?? {});
