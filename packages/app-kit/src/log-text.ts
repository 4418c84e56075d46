/** The most characters a log line takes from one request-controlled value (an id, a reason, a path). */
export const MAX_LOGGED_CHARS = 200;

/**
 * A request-controlled value as a log line takes it: at most {@link MAX_LOGGED_CHARS} characters, with how many
 * were left out, so a 16,000-character header costs the log a bounded line, not 16 KiB per request.
 * `undefined` and `null` stay `null`.
 *
 * @example
 * ```ts
 * logText("msg_123"); // "msg_123"
 * logText("x".repeat(16_000)); // "xxx…x…(15800 more characters)"
 * ```
 */
export function logText(value: unknown, max = MAX_LOGGED_CHARS): string | null {
  if (value === undefined || value === null) return null;
  const text = Array.isArray(value) ? value.join(", ") : String(value);
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length - max} more characters)`;
}
