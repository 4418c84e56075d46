import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, pageLimit } from "./cursor.js";
import { headersJson, keptHeaderSet, pickHeaders } from "./headers.js";
import { truncateUtf8 } from "./truncate.js";

describe("pickHeaders", () => {
  const keep = keptHeaderSet(["X-Request-Id", "Authorization", "Webhook-Signature"]);
  it("keeps the allow-list from objects, Headers and pairs; joins repeats; drops credentials", () => {
    const expected = { "content-type": "application/json", "x-request-id": "a, b" };
    expect(
      pickHeaders(
        { "Content-Type": "application/json", "x-request-id": ["a", "b"], authorization: "Bearer t" },
        keep,
      ),
    ).toEqual(expected);
    const h = new Headers([
      ["content-type", "application/json"],
      ["x-request-id", "a"],
      ["x-request-id", "b"],
      ["webhook-signature", "v1,x"],
    ]);
    expect(pickHeaders(h, keep)).toEqual(expected);
    expect(
      pickHeaders(
        [
          ["Content-Type", "application/json"],
          ["X-Request-Id", "a"],
          ["x-request-id", "b"],
        ],
        keep,
      ),
    ).toEqual(expected);
    expect(pickHeaders(undefined, keep)).toEqual({});
  });
});

describe("cursors", () => {
  it("round-trips keys and rejects foreign cursors", () => {
    expect(decodeCursor(encodeCursor(123_456_789))).toBe(123_456_789);
    expect(decodeCursor(null)).toBeNull();
    expect(() => decodeCursor("eyJ4IjoxfQ")).toThrow(expect.objectContaining({ code: "invalid_cursor" }));
    expect(pageLimit(undefined)).toBe(50);
    expect(pageLimit(5000)).toBe(1000);
    expect(() => pageLimit(0)).toThrow(expect.objectContaining({ code: "invalid_limit" }));
  });
});

describe("truncateUtf8", () => {
  it("cuts at a character boundary within the byte budget", () => {
    expect(truncateUtf8("abc", 10)).toBe("abc");
    expect(truncateUtf8("aé", 2)).toBe("a");
    expect(truncateUtf8("€€", 5)).toBe("€");
    expect(Buffer.byteLength(truncateUtf8("😀".repeat(2000), 4096))).toBe(4096);
    expect(truncateUtf8(new Uint8Array([0x61, 0xe2, 0x82, 0xac]), 3)).toBe("a");
  });
});

describe("headersJson", () => {
  it("writes exactly what JSON.stringify writes, for any picked record (header names, any values)", () => {
    const headerText = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
    // Names are kept names, which keptHeaderSet allows only as tokens (RFC 9110): every token character is here.
    const name = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,20}$/);
    const records = fc.oneof(
      fc.dictionary(fc.stringMatching(/^[a-z0-9-]{1,20}$/), headerText),
      fc.dictionary(name, headerText),
      fc.dictionary(name, fc.string()),
      fc.dictionary(name, fc.string({ unit: "binary" })),
    );
    fc.assert(
      fc.property(records, (headers) => {
        expect(headersJson(headers)).toBe(JSON.stringify(headers));
      }),
      { numRuns: 3000 },
    );
    for (const headers of [
      {},
      { "0": "a", b: "c", "1": "d" },
      { a: 'x"y' },
      { a: "x\\y" },
      { a: "tab\there" },
      { a: "é" },
      { a: "unit\x1f" },
      { a: "lone\ud800" },
      { a: "nul\u0000" },
    ]) {
      expect(headersJson(headers)).toBe(JSON.stringify(headers));
    }
  });
});
