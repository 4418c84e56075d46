/**
 * At most `max` characters of a value a request sent, marked when cut: messages quote requests, boundedly.
 *
 * @example
 * ```ts
 * truncate("a".repeat(200), 100).length; // 101
 * ```
 */
export function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * The message of a thrown value, for a log line.
 *
 * @example
 * ```ts
 * errorMessage(new Error("disk full")); // "disk full"
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
