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
  it("is true only where JSON.stringify writes the text unchanged between quotes: every code unit, anywhere", () => {
    let plain = 0;
    for (let unit = 0; unit <= 0xffff; unit++) {
      const c = String.fromCharCode(unit);
      const placed = [c, `${c}ab`, `a${c}b`, `ab${c}`, `${c}${c}`];
      const accepted = placed.map(isPlainJsonText);
      // One rule for the character, wherever it stands.
      expect(new Set(accepted).size).toBe(1);
      if (!accepted[0]) continue;
      plain++;
      for (const text of placed) expect(JSON.stringify(text)).toBe(`"${text}"`);
    }
    expect(plain).toBe(0x7e - 0x20 + 1 - 2); // printable ASCII but " and \
  });

  it("judges whole strings: accepted ones are written unchanged, one character outside the set refuses", () => {
    const ascii = fc.string({
      unit: fc.constantFrom(
        " ",
        "a",
        "Z",
        "0",
        "~",
        "{",
        '"',
        "\\",
        "\x1f",
        "\x7f",
        "\n",
        "\u2028",
        "\ud83c",
      ),
    });
    fc.assert(
      fc.property(ascii, (text) => {
        const plain = isPlainJsonText(text);
        expect(plain).toBe(/^[ aZ0~{]*$/.test(text));
        if (plain) expect(JSON.stringify(text)).toBe(`"${text}"`);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        if (isPlainJsonText(text)) expect(JSON.stringify(text)).toBe(`"${text}"`);
        expect(isPlainJsonText(`${text}\n`)).toBe(false);
        expect(isPlainJsonText(`"${text}`)).toBe(false);
      }),
    );
    expect(isPlainJsonText("")).toBe(true);
    expect(isPlainJsonText("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W application/json; q=0.5")).toBe(true);
  });
});
