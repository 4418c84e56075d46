import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { examples } from "../src/index.js";

describe("examples", () => {
  it("cover the edge cases the contract cares about", () => {
    const names = examples.map((e) => `${e.group}/${e.name}`);
    for (const expected of [
      "invalid/missing-name",
      "invalid/id-as-string",
      "lossless/id-beyond-2-53",
      "valid/extra-fields",
      "valid/unicode-name",
    ]) {
      expect(names).toContain(expected);
    }
  });

  it("export every file of examples/ byte for byte", () => {
    const dir = new URL("../examples/", import.meta.url);
    const files = ["valid", "lossless", "invalid"].flatMap((g) =>
      readdirSync(new URL(`${g}/`, dir)).map((f) => `${g}/${f.replace(/\.json$/, "")}`),
    );
    expect(examples.map((e) => `${e.group}/${e.name}`).sort()).toEqual(files.sort());
  });

  it("valid ones parse as JSON objects with an id and a name", () => {
    for (const e of examples.filter((x) => x.group === "valid")) {
      const v = JSON.parse(e.raw);
      expect(typeof v.name, e.name).toBe("string");
      expect(Number.isSafeInteger(v.id), e.name).toBe(true);
    }
  });
});
