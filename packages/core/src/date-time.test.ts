import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDateTime } from "./date-time.js";

describe("parseDateTime (RFC 3339 date-time)", () => {
  it.each([
    ["2026-11-22T10:00:00Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22t10:00:00z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T12:30:00+02:30", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T07:00:00-03:00", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00:00.5Z", "2026-11-22T10:00:00.500Z"],
    ["2026-11-22T10:00:00.123456789Z", "2026-11-22T10:00:00.123Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"],
    ["2016-12-31T23:59:60Z", "2016-12-31T23:59:59.999Z"], // a leap second: the last millisecond of its minute
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
  ])("reads %s", (text, iso) => {
    expect(new Date(parseDateTime(text) as number).toISOString()).toBe(iso);
  });

  it.each([
    "2026-02-30T10:00:00Z", // Date.parse: March 2
    "2026-02-29T10:00:00Z",
    "1900-02-29T10:00:00Z",
    "2026-04-31T10:00:00Z",
    "2026-02-10T24:00:00Z", // Date.parse: the next day
    "2026-13-01T10:00:00Z",
    "2026-00-01T10:00:00Z",
    "2026-11-00T10:00:00Z",
    "2026-11-22T10:60:00Z",
    "2026-11-22T10:00:61Z",
    "2026-11-22T10:00:00+24:00",
    "2026-11-22T10:00:00+02:60",
    "2026-11-22T10:00:00", // no offset
    "2026-11-22 10:00:00Z", // a space for T
    "2026-11-22",
    "1",
    "yesterday",
    "",
    "2026-11-22T10:00:00.Z",
    " 2026-11-22T10:00:00Z",
  ])("refuses %j", (text) => {
    expect(parseDateTime(text)).toBeNull();
  });

  it("agrees with Date.parse on every valid date-time (property)", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0100-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        (date) => {
          const iso = date.toISOString();
          expect(parseDateTime(iso)).toBe(date.getTime());
        },
      ),
    );
  });
});
