import type { JsonSchema } from "@plant-store/spec";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "./compile-schema.js";

// Keywords on their own and on nodes without `type`, judged by ajv (draft 2020-12, OpenAPI's int formats as range
// checks) and by compileSchema on any JSON value: JSON Schema applies each keyword to the values of its kind only
// (`minimum` to numbers, `properties` to objects, …), and a `number` takes its bounds like an integer does.
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat("int64", { type: "number", validate: (n: number) => n >= -(2 ** 63) && n < 2 ** 63 });
ajv.addFormat("int32", { type: "number", validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 });

// Each with a value it takes and one it refuses, mixed into the generated values.
const SCHEMAS: [JsonSchema, unknown, unknown][] = [
  [{ minimum: 0 }, "x", -1],
  [{ minimum: -5, maximum: 10 }, 10, 10.5],
  [{ type: "number", minimum: 0.5, maximum: 2.5 }, 0.5, 0.49],
  [{ type: "number", maximum: -1 }, -1e6, -0.5],
  [{ properties: { n: { minimum: 0 } } }, "not an object", { n: -1 }],
  [{ properties: { a: { type: "string" } }, required: ["a"] }, { a: "" }, {}],
  [{ additionalProperties: false, properties: { a: {} } }, [1], { a: 1, b: 2 }],
  [{ minLength: 2, maxLength: 4 }, "abcd", "a"],
  [{ pattern: "^a" }, "ab", "ba"],
  [{ items: { type: "integer" }, minItems: 1 }, [1], []],
  [{ maxItems: 2 }, {}, [1, 2, 3]],
  [{ allOf: [{ type: "integer", format: "int64" }, { minimum: 0 }] }, 0, -1],
  [
    { type: "object", properties: { n: { allOf: [{ type: "integer" }, { maximum: 3 }] } }, required: ["n"] },
    { n: 3 },
    { n: 4 },
  ],
  [{ type: "object", properties: { tags: { items: { minLength: 1 } } } }, { tags: ["a", 1] }, { tags: [""] }],
  [{ anyOf: [{ type: "string" }, { minimum: 100 }] }, 100, 99],
];

// JSON values whose numbers a double holds exactly as integers (±2^53) or are plain fractions: the int64 modes
// judge integers beyond 2^53 on their own terms (differential.test.ts), not the keywords under test here.
const number = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.integer(),
  fc
    .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    .map((n) => (Object.is(n, -0) ? 0 : n)),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    fc.string({ maxLength: 6 }),
    fc.array(tie("json"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "n", "tags", "x"), tie("json"), { maxKeys: 3 }),
  ),
}));

describe("compileSchema and ajv agree on keywords by value kind", () => {
  it.each(SCHEMAS.map(([schema, good, bad]) => [JSON.stringify(schema), schema, good, bad] as const))(
    "%s",
    (_, schema, good, bad) => {
      const validate = ajv.compile(schema as object);
      expect([validate(good), validate(bad)]).toEqual([true, false]);
      const modes = (["safe", "lossless"] as const).flatMap((mode) =>
        [true, false].map((transform) => compileSchema(schema, { mode, name: "value", transform }).zod),
      );
      const verdicts = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(fc.oneof({ arbitrary: json, weight: 8 }, fc.constantFrom(good, bad)), (value) => {
          const expected = validate(value);
          verdicts[expected ? "valid" : "invalid"]++;
          for (const zod of modes) expect(zod.safeParse(structuredClone(value)).success).toBe(expected);
        }),
        { numRuns: 400 },
      );
      // Both verdicts were tried, so neither side can pass by accepting or refusing everything.
      expect(verdicts.valid).toBeGreaterThan(0);
      expect(verdicts.invalid).toBeGreaterThan(0);
    },
  );

  it("names the bound a number breaks, and where", () => {
    const { zod } = compileSchema(
      { type: "object", properties: { height: { type: "number", minimum: 0 } } },
      { mode: "lossless", name: "Plant" },
    );
    const issue = zod.safeParse({ height: -1.5 }).error?.issues[0];
    expect(issue?.path).toEqual(["height"]);
    expect(issue?.message).toBe("height -1.5 is outside [0, ∞]. Send a number in that range.");
    const typeless = compileSchema(
      { properties: { n: { minimum: 0 } } },
      { mode: "lossless", name: "Plant" },
    );
    expect(typeless.zod.safeParse({ n: -1 }).error?.issues[0]?.path).toEqual(["n"]);
    expect(typeless.zod.safeParse("not an object").success).toBe(true);
  });

  it("compares an exact integer with a number's bounds exactly", () => {
    const { zod } = compileSchema(
      { type: "number", maximum: 9007199254740992 },
      { mode: "lossless", name: "size" },
    );
    expect(zod.safeParse(9007199254740992n).success).toBe(true);
    // A double cannot tell 2^53 + 1 from 2^53; the bigint is compared as it is.
    expect(zod.safeParse(9007199254740993n).success).toBe(false);
  });

  it("converts int64 values inside anyOf and type lists, alone and under allOf", () => {
    const int64 = { type: "integer", format: "int64" } as const;
    for (const schema of [
      { anyOf: [int64, { type: "string" }] },
      { allOf: [{ anyOf: [int64, { type: "string" }] }, { minimum: 0 }] },
      { allOf: [{ type: ["integer", "null"], format: "int64" }, { minimum: 0 }] },
    ] as JsonSchema[]) {
      const compiled = compileSchema(schema, { mode: "lossless", name: "id" });
      expect(compiled.zod.safeParse(5).data, JSON.stringify(schema)).toBe(5n);
      const checking = compileSchema(schema, { mode: "lossless", name: "id", transform: false });
      expect(checking.zod.safeParse(5).success).toBe(true);
      expect(checking.convert?.(5), JSON.stringify(schema)).toBe(5n);
    }
  });
});
