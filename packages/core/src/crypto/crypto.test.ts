import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as platform from "#crypto";
import { implementations } from "../../test/support/crypto-implementations.js";
import { fromHex, toHex, utf8Encode } from "../encoding.js";
import * as node from "./node.js";
import * as web from "./web.js";

describe.each(implementations)("$implementation crypto", (crypto) => {
  it("computes SHA-256 (FIPS 180-2 vectors)", async () => {
    expect(toHex(await crypto.sha256(utf8Encode("")))).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(toHex(await crypto.sha256(utf8Encode("abc")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("computes HMAC-SHA256 (RFC 4231 test cases 1, 2 and 6)", async () => {
    const case1 = await crypto.hmacSha256(new Uint8Array(20).fill(0x0b), utf8Encode("Hi There"));
    expect(toHex(case1)).toBe("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const case2 = await crypto.hmacSha256(utf8Encode("Jefe"), utf8Encode("what do ya want for nothing?"));
    expect(toHex(case2)).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    const longKey = new Uint8Array(131).fill(0xaa);
    const case6 = await crypto.hmacSha256(
      longKey,
      utf8Encode("Test Using Larger Than Block-Size Key - Hash Key First"),
    );
    expect(toHex(case6)).toBe("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  });

  it("returns plain Uint8Arrays", async () => {
    const mac = await crypto.hmacSha256(utf8Encode("k"), utf8Encode("m"));
    expect(Object.getPrototypeOf(mac)).toBe(Uint8Array.prototype);
    expect(Object.getPrototypeOf(await crypto.sha256(utf8Encode("m")))).toBe(Uint8Array.prototype);
    expect(Object.getPrototypeOf(crypto.randomBytes(4))).toBe(Uint8Array.prototype);
  });

  it("fills random buffers of any length, beyond the 65536-byte getRandomValues limit too", () => {
    expect(crypto.randomBytes(0)).toHaveLength(0);
    const large = crypto.randomBytes(70_000);
    expect(large).toHaveLength(70_000);
    // A tail left unfilled would be zeros; 4464 zero bytes in a row from a CSPRNG is impossible in practice.
    expect(large.subarray(65_536).some((byte) => byte !== 0)).toBe(true);
    expect(toHex(crypto.randomBytes(16))).not.toBe(toHex(crypto.randomBytes(16)));
  });

  it("compares in constant time, false on any difference including length", () => {
    const a = fromHex("00112233") ?? new Uint8Array();
    expect(crypto.timingSafeEqual(a, fromHex("00112233") ?? new Uint8Array())).toBe(true);
    expect(crypto.timingSafeEqual(a, fromHex("00112234") ?? new Uint8Array())).toBe(false);
    expect(crypto.timingSafeEqual(a, fromHex("80112233") ?? new Uint8Array())).toBe(false);
    expect(crypto.timingSafeEqual(a, fromHex("001122") ?? new Uint8Array())).toBe(false);
    expect(crypto.timingSafeEqual(new Uint8Array(), new Uint8Array())).toBe(true);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (x, y) => {
        expect(crypto.timingSafeEqual(x, y)).toBe(toHex(x) === toHex(y) && x.length === y.length);
      }),
    );
  });
});

describe("node and web implementations", () => {
  it("name themselves, and #crypto picks node:crypto on Node", () => {
    expect(node.implementation).toBe("node");
    expect(web.implementation).toBe("web");
    expect(platform.implementation).toBe("node");
  });

  it("agree on HMAC-SHA256 and SHA-256 for any input", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 100 }),
        fc.uint8Array({ maxLength: 300 }),
        async (key, data) => {
          expect(toHex(await web.hmacSha256(key, data))).toBe(toHex(await node.hmacSha256(key, data)));
          expect(toHex(await web.sha256(data))).toBe(toHex(await node.sha256(data)));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("MACs parts as their concatenation (strings as UTF-8), and hashes strings as UTF-8", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.uint8Array({ maxLength: 200 }),
        async (key, head, body) => {
          const joined = new Uint8Array([...utf8Encode(head), ...body]);
          const whole = toHex(await web.hmacSha256(key, joined));
          expect(toHex(node.hmacSha256Sync(key, head, body))).toBe(whole);
          expect(toHex(node.hmacSha256Sync(key, joined))).toBe(whole);
          expect(toHex(node.sha256Sync(head))).toBe(toHex(await web.sha256(utf8Encode(head))));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("MACs head and body as base64 from cached key pads, as createHmac does, for any key (long ones too)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 150 }),
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 100 })),
        (key, head, body) => {
          const expected = createHmac("sha256", key).update(head).update(body).digest("base64");
          expect(node.hmacSha256Base64Sync(key, head, body)).toBe(expected);
          expect(node.hmacSha256Base64Sync(key, head, body)).toBe(expected); // again, from the cached pads
        },
      ),
      { numRuns: 300 },
    );
  });
});
