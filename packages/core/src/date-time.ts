// RFC 3339 §5.6 date-time: full-date "T" full-time, with "Z" or a numeric offset; "T" and "Z" in either case.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Reads an RFC 3339 `date-time` (the JSON Schema / OpenAPI `format: date-time`) as milliseconds since the epoch, or
 * `null` when it is not one. Stricter than `Date.parse`, which reads `2026-02-30` as March 2 and `24:00` as the next
 * day: every field must be in range (the day for its month and year, hours 0–23, minutes 0–59, an offset of at most
 * 23:59). A leap second (`:60`) is valid RFC 3339 but JavaScript time has none: it reads as the last millisecond of
 * its minute. Fractions beyond milliseconds are truncated.
 *
 * @example
 * ```ts
 * parseDateTime("2026-11-22T10:00:00Z");      // 1795341600000
 * parseDateTime("2026-11-22T12:00:00+02:00"); // 1795341600000
 * parseDateTime("2026-02-30T10:00:00Z");      // null
 * ```
 */
export function parseDateTime(text: string): number | null {
  const match = typeof text === "string" ? DATE_TIME.exec(text) : null;
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [offsetHours, offsetMinutes] = match[8] ? [0, 0] : [Number(match[10]), Number(match[11])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = second === 60 ? 999 : Number((match[7] ?? "").slice(0, 3).padEnd(3, "0"));
  // Date.UTC would take years 0–99 as 1900–1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), millis);
  const sign = match[9] === "-" ? -1 : 1;
  return date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
