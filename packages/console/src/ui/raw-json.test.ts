import { describe, expect, it } from "vitest";
import { indentJson, parseKeepingRaw, rawOf } from "./raw-json.js";

describe("raw JSON", () => {
  it("keeps the exact text of a payload with an id beyond 2^53", () => {
    const text = '{"data":[{"seq":1,"payload":{"id":9223372036854775807,"name":"Fern \\"x\\"","tag":null}}]}';
    const page = parseKeepingRaw(text) as { data: object[] };
    expect(rawOf(page.data[0], "payload")).toBe(
      '{"id":9223372036854775807,"name":"Fern \\"x\\"","tag":null}',
    );
    expect(page).toEqual(JSON.parse(text));
  });

  it("re-indents without touching a token", () => {
    expect(indentJson('{"id":9007199254740993,"a":[],"b":{},"s":"x,{y}:"}')).toBe(
      '{\n  "id": 9007199254740993,\n  "a": [],\n  "b": {},\n  "s": "x,{y}:"\n}',
    );
  });

  it("refuses what is not JSON", () => {
    for (const bad of ['{"a":1', "[1,]", '{"a" 1}', "01x", ""]) {
      expect(() => parseKeepingRaw(bad)).toThrow(SyntaxError);
    }
  });
});
