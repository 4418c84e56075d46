import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after.js";

const NOW = Date.UTC(1994, 10, 6, 8, 49, 0); // Sun, 06 Nov 1994 08:49:00 GMT

describe("parseRetryAfter", () => {
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter("0", NOW)).toBe(0);
    expect(parseRetryAfter(" 7 ", NOW)).toBe(7000);
    expect(parseRetryAfter("99999999999999999999", NOW)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("reads all three HTTP-date forms relative to now", () => {
    expect(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).toBe(37_000);
    expect(parseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).toBe(37_000);
    expect(parseRetryAfter("Sun Nov  6 08:49:37 1994", NOW)).toBe(37_000);
    expect(parseRetryAfter("Mon, 07 Nov 1994 08:49:00 GMT", NOW)).toBe(24 * 3600 * 1000);
  });

  it("treats a date in the past as no wait", () => {
    expect(parseRetryAfter("Sat, 05 Nov 1994 08:49:00 GMT", NOW)).toBe(0);
  });

  it("puts two-digit years within 50 years of now", () => {
    const now2030 = Date.UTC(2030, 0, 1);
    expect(parseRetryAfter("Tuesday, 01-Jan-30 00:01:00 GMT", now2030)).toBe(60_000);
    // 2080 is 50 years after 2030, still this century; 2081 is more, so "81" is 1981: in the past.
    expect(parseRetryAfter("Monday, 01-Jan-80 00:00:00 GMT", now2030)).toBe(Date.UTC(2080, 0, 1) - now2030);
    expect(parseRetryAfter("Thursday, 01-Jan-81 00:00:00 GMT", now2030)).toBe(0);
  });

  it("ignores anything invalid", () => {
    for (const value of [
      null,
      undefined,
      "",
      "soon",
      "-5",
      "1.5",
      "1e3",
      "0x10",
      "Sun, 06 Nov 1994 08:49:37 UTC",
      "Sun, 6 Nov 1994 08:49:37 GMT",
      "Sun, 06 Foo 1994 08:49:37 GMT",
      "Sun, 31 Feb 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 24:49:37 GMT",
      "Sun, 06 Nov 1994 08:60:37 GMT",
      "1994-11-06T08:49:37Z",
      "Sun, 06 Nov 1994 08:49:37 GMT extra",
    ]) {
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
    }
  });
});
