import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, invalidUtf8Offset } from "./utf8.js";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("decodeUtf8", () => {
  it("decodes well-formed UTF-8 and keeps a byte order mark for the caller", () => {
    expect(decodeUtf8(new TextEncoder().encode("Žlutá růže 🌹"))).toEqual({
      ok: true,
      text: "Žlutá růže 🌹",
    });
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toEqual({ ok: true, text: "\uFEFF{}" });
  });

  it.each([
    ["a lone continuation byte", bytes(0x7b, 0x80), 1],
    ["0xFF", bytes(0x7b, 0x7d, 0xff), 2],
    ["an overlong '/'", bytes(0x61, 0xc0, 0xaf), 1],
    ["an overlong 3-byte form", bytes(0xe0, 0x80, 0xaf), 0],
    ["a UTF-16 surrogate", bytes(0x20, 0xed, 0xa0, 0x80), 1],
    ["a code point above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ["a truncated sequence", bytes(0x7b, 0xe2, 0x82), 1],
  ])("reports %s at its offset", (_, input, offset) => {
    expect(decodeUtf8(input)).toEqual({ ok: false, offset, byte: input[offset] });
  });

  it("agrees with a fatal TextDecoder on arbitrary bytes", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true });
    const nearlyUtf8 = fc
      .tuple(fc.string({ unit: "binary" }), fc.nat(), fc.integer({ min: 0, max: 255 }))
      .map(([text, at, byte]) => {
        const encoded = new TextEncoder().encode(text);
        if (encoded.length > 0) encoded[at % encoded.length] = byte;
        return encoded;
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array(), nearlyUtf8), (input) => {
        let valid = true;
        try {
          fatal.decode(input);
        } catch {
          valid = false;
        }
        const offset = invalidUtf8Offset(input);
        expect(offset === -1).toBe(valid);
        if (!valid) {
          // Everything before the reported offset is well-formed on its own.
          expect(() => fatal.decode(input.subarray(0, offset))).not.toThrow();
        }
      }),
      { numRuns: 2000 },
    );
  });
});
