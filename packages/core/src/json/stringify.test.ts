import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainJsonText, stringifyJson } from "./stringify.js";

describe("stringifyJson", () => {
  it("writes bigints as bare integer literals with every digit", () => {
    expect(stringifyJson({ id: 9223372036854775807n, list: [-9223372036854775808n], n: 1 })).toBe(
      '{"id":9223372036854775807,"list":[-9223372036854775808],"n":1}',
    );
  });

  it("equals JSON.stringify for values without bigints", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.double(), (value, number) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value));
        expect(stringifyJson({ number, skipped: undefined })).toBe(
          JSON.stringify({ number, skipped: undefined }),
        );
      }),
    );
  });

  it("throws for a value without a JSON form", () => {
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });
});

describe("isPlainJsonText", () => {
  it("is true only where JSON.stringify writes the text unchanged between quotes, over every code unit", () => {
    let plain = 0;
    for (let unit = 0; unit <= 0xffff; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      if (!isPlainJsonText(text)) continue;
      plain++;
      expect(JSON.stringify(text)).toBe(`"${text}"`);
    }
    expect(plain).toBe(0x7e - 0x20 + 1 - 2); // printable ASCII but " and \
  });

  it("judges whole strings: accepted ones are written unchanged, one character outside the set refuses", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        if (isPlainJsonText(text)) expect(JSON.stringify(text)).toBe(`"${text}"`);
        expect(isPlainJsonText(`${text}\n`)).toBe(false);
      }),
    );
    expect(isPlainJsonText("")).toBe(true);
    expect(isPlainJsonText("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W application/json; q=0.5")).toBe(true);
    for (const text of ['say "hi"', "a\\b", "tab\there", "caf\u00e9", "\ud83c", "\x7f"]) {
      expect(isPlainJsonText(text)).toBe(false);
    }
  });
});
