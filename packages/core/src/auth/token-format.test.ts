import { crc32 as zlibCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeBase62, utf8Encode } from "../encoding.js";
import { crc32 } from "./crc32.js";
import { createToken } from "./index.js";
import { checkTokenFormat, generateToken } from "./token-format.js";

const zeros = (n: number) => new Uint8Array(n);

describe("crc32", () => {
  it("matches the standard check value and zlib", () => {
    expect(crc32(utf8Encode("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (data) => {
        expect(crc32(data)).toBe(zlibCrc32(data));
      }),
    );
  });
});

describe("generateToken / createToken", () => {
  it("lays out psk_ + 30 base62 characters + the base62 CRC-32 of them", () => {
    const token = generateToken(zeros);
    const body = "0".repeat(30);
    expect(token).toBe(`psk_${body}${encodeBase62(crc32(utf8Encode(body)), 6)}`);
    expect(token).toHaveLength(40);
  });

  it("maps bytes below 248 to byte % 62 and redraws the rest, so no character is favoured", () => {
    const draws = [new Uint8Array([248, 255, 61, 62]), new Uint8Array(28).fill(123)];
    const requested: number[] = [];
    const token = generateToken((n) => {
      requested.push(n);
      return draws.shift() ?? zeros(n);
    });
    expect(requested).toEqual([30, 28]);
    expect(token.slice(4, 34)).toBe(`z0${"z".repeat(28)}`);
  });

  it("gives up on a random source that never yields usable bytes", () => {
    expect(() => generateToken((n) => new Uint8Array(n).fill(255))).toThrow(/random source/);
  });

  it("creates distinct, well-formed tokens with the default random source", () => {
    const a = createToken();
    const b = createToken();
    expect(a).toMatch(/^psk_[0-9A-Za-z]{36}$/);
    expect(a).not.toBe(b);
    expect(checkTokenFormat(a)).toEqual({ ok: true });
  });

  it("uses an injected random source", () => {
    expect(createToken({ random: zeros })).toBe(generateToken(zeros));
  });
});

describe("checkTokenFormat", () => {
  const token = generateToken((n) => new Uint8Array(n).map((_, i) => i * 7));

  it("accepts any generated token", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 30, maxLength: 30, max: 247 }), (random) => {
        expect(checkTokenFormat(generateToken(() => random))).toEqual({ ok: true });
      }),
    );
  });

  it.each([
    ["a wrong prefix", token.replace("psk_", "pst_"), "does not start with 'psk_'"],
    ["a non-psk token", "ghp_abc", "does not start with 'psk_'"],
    ["a truncated token", token.slice(0, 39), "39 characters long"],
    ["an extra character", `${token}a`, "41 characters long"],
    ["a trailing line break", `${token}\n`, "other than letters and digits"],
    ["a dash", `${token.slice(0, 10)}-${token.slice(11)}`, "other than letters and digits"],
  ])("explains %s", (_, value, fragment) => {
    const result = checkTokenFormat(value);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toContain(fragment);
      expect(result.reason).not.toContain(token.slice(4));
    }
  });

  it("calls a checksum mismatch a likely typo, for any single changed character", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 39 }), fc.integer({ min: 1, max: 61 }), (position, shift) => {
        const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        const changed = alphabet.charAt((alphabet.indexOf(token.charAt(position)) + shift) % 62);
        const typo = token.slice(0, position) + changed + token.slice(position + 1);
        const result = checkTokenFormat(typo);
        expect(result).toMatchObject({ ok: false });
        if (!result.ok) expect(result.reason).toMatch(/checksum does not match.*mistyped/);
      }),
    );
  });
});
