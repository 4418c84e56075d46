import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rootMemberLiteral } from "./root-member-literal.js";

describe("rootMemberLiteral", () => {
  it.each([
    ['{"id": 9007199254740993, "name": "x"}', "9007199254740993"],
    ['{ "name" : "x" , "id" :\n\t-1.50e+3 }', "-1.50e+3"],
    ['{"x": {"id": 1}, "y": [{"id": 2}], "id": 3}', "3"],
    ['{"id": 1, "id": 2e0}', "2e0"],
    ['{"\\u0069d": 12}', "12"],
    ['{"a\\"id": 5, "id": 6}', "6"],
    ['{"name": "\\"id\\": 7", "id": 8}', "8"],
  ])("finds the literal in %s", (text, literal) => {
    expect(rootMemberLiteral(text, "id")).toBe(literal);
  });

  it.each([
    ['{"id": "1"}'],
    ['{"id": 1, "id": null}'],
    ['{"x": {"id": 1}}'],
    ['[{"id": 1}]'],
    ["1"],
    ['{"ids": 1}'],
  ])("finds no number in %s", (text) => {
    expect(rootMemberLiteral(text, "id")).toBeUndefined();
  });

  it("finds what JSON.stringify wrote for any root object, with or without indentation", () => {
    const member = fc.oneof(fc.double(), fc.integer(), fc.constant(-0), fc.jsonValue({ maxDepth: 2 }));
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("id", "ID", "i\\d", "\u0000")), member),
        fc.constantFrom(0, 2, "\t"),
        (object, space) => {
          const text = JSON.stringify(object, null, space);
          const { id } = JSON.parse(text) as { id?: unknown };
          const expected = typeof id === "number" ? JSON.stringify(id) : undefined;
          expect(rootMemberLiteral(text, "id")).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("copes with nesting deeper than the call stack", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(rootMemberLiteral(`{"x": ${deep}, "id": 4}`, "id")).toBe("4");
  });
});
