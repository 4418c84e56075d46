import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayMisreadANumber } from "./parse-event.js";

/** The rule as it was first written, a regex: the one-pass scan must give the same answer on any text. */
const REFERENCE = /(?:\d\.?){16}|\d[eE]/;

describe("mayMisreadANumber", () => {
  it("answers as the regex does, on any text of digits, dots, exponents and JSON", () => {
    const unit = fc.constantFrom(...'0123456789..eE -+,:{}"ax');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), (text) => {
        expect(mayMisreadANumber(text)).toBe(REFERENCE.test(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("answers as the regex does on JSON documents and on any string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ unit: "binary" })), (text) => {
        expect(mayMisreadANumber(text)).toBe(REFERENCE.test(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it("finds the literals a double would change, and passes the usual New Plant body", () => {
    expect(mayMisreadANumber('{"id":9007199254740993,"name":"Fern"}')).toBe(true);
    expect(mayMisreadANumber('{"id":1.000000000000001}')).toBe(true);
    expect(mayMisreadANumber('{"id":1e3}')).toBe(true);
    expect(mayMisreadANumber('{"id":123456789012345,"name":"Fern","tag":"green"}')).toBe(false);
    expect(mayMisreadANumber('{"id":1.,"x":2..3}')).toBe(false);
  });
});
