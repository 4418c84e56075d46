import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringifyJson } from "./stringify.js";

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
