import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toJsonPointer } from "./pointer.js";

/** RFC 6901 evaluation, written from the RFC's section 4 to check the formatter against. */
function resolve(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  let node = document as Record<string, unknown>;
  for (const token of pointer.slice(1).split("/")) {
    node = node[token.replaceAll("~1", "/").replaceAll("~0", "~")] as Record<string, unknown>;
  }
  return node;
}

describe("toJsonPointer", () => {
  it("formats the RFC 6901 examples", () => {
    expect(toJsonPointer([])).toBe("");
    expect(toJsonPointer(["foo"])).toBe("/foo");
    expect(toJsonPointer(["foo", 0])).toBe("/foo/0");
    expect(toJsonPointer([""])).toBe("/");
    expect(toJsonPointer(["a/b"])).toBe("/a~1b");
    expect(toJsonPointer(["m~n"])).toBe("/m~0n");
    expect(toJsonPointer(["~1"])).toBe("/~01");
  });

  it("points back to the value at the path, whatever the keys", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 5 }), fc.string(), (path, leaf) => {
        let document: unknown = leaf;
        for (const key of [...path].reverse()) document = { [key]: document };
        expect(resolve(document, toJsonPointer(path))).toBe(leaf);
      }),
    );
  });
});
