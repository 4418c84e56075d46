import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkKey } from "../src/shared/validate.js";

/** The rule as first written: 1 to 256 characters, none of them a control character (Unicode Cc). */
const accepted = (text: string) => text.length > 0 && text.length <= 256 && !/\p{Cc}/u.test(text);

describe("checkKey", () => {
  it("accepts exactly the 1 to 256 characters without a control character, on any text", () => {
    const near = fc.constantFrom(
      "\u0000",
      "\u001f",
      " ",
      "~",
      "\u007f",
      "\u0080",
      "\u009f",
      "\u00a0",
      "é",
      "a",
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: near, maxLength: 300 }), fc.string({ unit: "binary", maxLength: 40 })),
        (text) => {
          let ok = true;
          try {
            checkKey(text, "webhook id");
          } catch {
            ok = false;
          }
          expect(ok).toBe(accepted(text));
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
