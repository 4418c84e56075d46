/**
 * A date as ISO 8601 text, `null` kept.
 *
 * @example
 * ```ts
 * iso(null); // null
 * ```
 */
export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
