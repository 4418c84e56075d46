const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = `(${MONTHS.join("|")})`;
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
// The three HTTP-date forms of RFC 9110 §5.6.7, which recipients must all accept.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * Parses a `Retry-After` value — delta-seconds or an HTTP-date — into milliseconds from `nowMs`.
 * Returns `undefined` for anything invalid; a date in the past yields 0.
 *
 * @example
 * ```ts
 * import { parseRetryAfter } from "@plant-store/core";
 * parseRetryAfter("120", Date.now()); // 120000
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.UTC(2015, 9, 21, 7, 27)); // 60000
 * parseRetryAfter("soon", Date.now()); // undefined
 * ```
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, Number.MAX_SAFE_INTEGER);
  const date = parseHttpDate(trimmed, nowMs);
  return date === undefined ? undefined : Math.max(0, date - nowMs);
}

function parseHttpDate(value: string, nowMs: number): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match) return utc(match[3], match[2], match[1], match[4], match[5], match[6]);
  match = RFC_850.exec(value);
  if (match) return utc(fullYear(Number(match[3]), nowMs), match[2], match[1], match[4], match[5], match[6]);
  match = ASCTIME.exec(value);
  if (match) return utc(match[6], match[1], match[2], match[3], match[4], match[5]);
  return undefined;
}

/** RFC 9110: a two-digit year more than 50 years in the future belongs to the previous century. */
function fullYear(twoDigits: number, nowMs: number): number {
  const thisYear = new Date(nowMs).getUTCFullYear();
  const century = Math.floor(thisYear / 100) * 100;
  const year = century + twoDigits;
  return year > thisYear + 50 ? year - 100 : year;
}

function utc(
  year: string | number | undefined,
  month: string | undefined,
  day: string | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
): number | undefined {
  const values = [year, day, hour, minute, second].map(Number);
  const [y, d, h, m, s] = values as [number, number, number, number, number];
  const monthIndex = MONTHS.indexOf(month ?? "");
  if (values.some(Number.isNaN) || monthIndex < 0 || h > 23 || m > 59 || s > 60) return undefined;
  const time = Date.UTC(y, monthIndex, d, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March; such a date is invalid rather than a different day.
  return new Date(time).getUTCDate() === d ? time : undefined;
}
