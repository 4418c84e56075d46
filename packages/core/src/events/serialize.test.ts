import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlantStoreError } from "../errors.js";
import { parseNewPlant } from "./parse.js";
import { serializeNewPlant } from "./serialize.js";

describe("serializeNewPlant", () => {
  it("writes bigint ids as bare integer literals, keeping key order and extra properties", () => {
    expect(
      serializeNewPlant({ name: "Fern", id: 9223372036854775807n, tag: "t", stock: [9007199254740993n] }),
    ).toBe('{"name":"Fern","id":9223372036854775807,"tag":"t","stock":[9007199254740993]}');
    expect(serializeNewPlant({ id: -9223372036854775808n, name: "" })).toBe(
      '{"id":-9223372036854775808,"name":""}',
    );
    expect(serializeNewPlant({ id: 1, name: "Monstera" })).toBe('{"id":1,"name":"Monstera"}');
  });

  it("round-trips through parseNewPlant in the matching mode", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.maxSafeInteger(),
        fc.string({ unit: "binary" }),
        fc.option(fc.string(), { nil: undefined }),
        (big, safe, name, tag) => {
          const lossless = tag === undefined ? { id: big, name } : { id: big, name, tag };
          expect(parseNewPlant(serializeNewPlant(lossless), { mode: "lossless" })).toEqual({
            ok: true,
            value: lossless,
          });
          const plain = { id: safe, name };
          expect(parseNewPlant(serializeNewPlant(plain), { mode: "safe" })).toEqual({
            ok: true,
            value: plain,
          });
        },
      ),
    );
  });

  it("refuses events the receiver would refuse, saying where", () => {
    const attempt = (value: unknown) => () => serializeNewPlant(value as never);
    expect(attempt({ id: 2n ** 63n, name: "x" })).toThrow(
      /At \/id: id 9223372036854775808 is outside the int64 range/,
    );
    expect(attempt({ id: 2 ** 60, name: "x" })).toThrow(/At \/id: .*Pass it as a bigint/);
    expect(attempt({ id: 1 })).toThrow(/At \/name: name is missing/);
    try {
      attempt({ id: 1.5, name: "x" })();
    } catch (error) {
      expect(error).toBeInstanceOf(PlantStoreError);
      expect((error as PlantStoreError).code).toBe("invalid_event");
    }
    expect.assertions(5);
  });
});
