import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BASE62_ALPHABET,
  encodeBase62,
  fromBase64,
  fromHex,
  toBase64,
  toHex,
  utf8Decode,
  utf8Encode,
} from "./encoding.js";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("utf8", () => {
  it("encodes multi-byte characters", () => {
    expect(utf8Encode("é🌿")).toEqual(bytes(0xc3, 0xa9, 0xf0, 0x9f, 0x8c, 0xbf));
  });

  it("replaces invalid sequences with U+FFFD when decoding", () => {
    expect(utf8Decode(bytes(0x61, 0xff))).toBe("a\ufffd");
  });

  it("round-trips any well-formed string", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => utf8Decode(utf8Encode(text)) === text));
  });
});

describe("base64", () => {
  it.each([
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ])("matches the RFC 4648 vector %j", (text, encoded) => {
    expect(toBase64(utf8Encode(text))).toBe(encoded);
    expect(fromBase64(encoded)).toEqual(utf8Encode(text));
  });

  it("uses + and / and agrees with the platform encoder", () => {
    expect(toBase64(bytes(0xfb, 0xff, 0xbf))).toBe("+/+/");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (data) => {
        expect(toBase64(data)).toBe(Buffer.from(data).toString("base64"));
      }),
    );
  });

  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (data) => {
        expect(fromBase64(toBase64(data))).toEqual(data);
      }),
    );
  });

  it.each([
    ["missing padding", "Zg"],
    ["too much padding", "Z==="],
    ["padding in the middle", "Zg==Zm8="],
    ["url-safe alphabet", "-_-_"],
    ["whitespace", "Zm9v\n"],
    ["non-zero padding bits (==)", "Zh=="],
    ["non-zero padding bits (=)", "Zm9="],
    ["non-ASCII", "Zm9é"],
  ])("rejects %s", (_, text) => {
    expect(fromBase64(text)).toBeNull();
  });

  it("never throws and accepts only what it would produce", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (text) => {
        const decoded = fromBase64(text);
        if (decoded !== null) expect(toBase64(decoded)).toBe(text);
      }),
    );
  });
});

describe("hex", () => {
  it("encodes lower case and decodes either case", () => {
    expect(toHex(bytes(0, 0xab, 0xff))).toBe("00abff");
    expect(fromHex("00ABff")).toEqual(bytes(0, 0xab, 0xff));
    expect(fromHex("")).toEqual(bytes());
  });

  it.each(["0", "0g", "0x00", " 00"])("rejects %j", (text) => {
    expect(fromHex(text)).toBeNull();
  });

  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array(), (data) => {
        expect(fromHex(toHex(data))).toEqual(data);
      }),
    );
  });
});

describe("encodeBase62", () => {
  it("encodes with digits, upper case, then lower case, padded to the width", () => {
    expect(BASE62_ALPHABET).toHaveLength(62);
    expect(encodeBase62(0)).toBe("0");
    expect(encodeBase62(61)).toBe("z");
    expect(encodeBase62(62, 6)).toBe("000010");
    expect(encodeBase62(0xffffffff, 6)).toBe("4gfFC3");
  });

  it("is positional base 62", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (value) => {
        const encoded = encodeBase62(value);
        const decoded = [...encoded].reduce(
          (acc, char) => acc * 62n + BigInt(BASE62_ALPHABET.indexOf(char)),
          0n,
        );
        expect(decoded).toBe(BigInt(value));
      }),
    );
  });

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1])("refuses %d", (value) => {
    expect(() => encodeBase62(value)).toThrow(RangeError);
  });
});
