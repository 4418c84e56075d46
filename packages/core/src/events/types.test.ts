import type {
  ApiError as SpecApiError,
  NewPlant as SpecNewPlant,
  Plant as SpecPlant,
} from "@plant-store/spec";
import { describe, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import type { ApiError } from "./api-error.js";
import { parseNewPlant } from "./parse.js";
import type { ParseResult } from "./parse-event.js";
import type { NewPlant, NewPlantLossless, Plant } from "./plant.js";

// Checked by `tsc` (the package's typecheck), which compiles this file; at run time these are no-ops.

/** The declared properties of T, without an index signature. */
type Known<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K];
};

/** An intersection written as one object type (the spec's NewPlant is `Plant & { id }`). */
type Flat<T> = { [K in keyof T]: T[K] };

describe("schema types equal the spec's generated types", () => {
  // The exported types are exactly the spec's (no index signature, `tag?: string`), so they assign both ways under
  // `exactOptionalPropertyTypes` too (test/exact-optional checks that). The schemas are loose objects (the spec has
  // no `additionalProperties: false`): what they output keeps undeclared properties at run time and still fits the
  // exported type.
  it("Plant", () => {
    expectTypeOf<Plant>().toEqualTypeOf<SpecPlant>();
    expectTypeOf<Known<z.infer<typeof Plant>>>().toEqualTypeOf<SpecPlant>();
    expectTypeOf<z.infer<typeof Plant>>().toExtend<Plant>();
  });

  it("NewPlant", () => {
    expectTypeOf<NewPlant>().toEqualTypeOf<Flat<SpecNewPlant>>();
    expectTypeOf<NewPlant>().toEqualTypeOf<{ id: number; name: string; tag?: string }>();
    expectTypeOf<Known<z.infer<typeof NewPlant>>>().toEqualTypeOf<Known<SpecNewPlant>>();
    expectTypeOf<z.infer<typeof NewPlant>>().toExtend<NewPlant>();
    expectTypeOf<SpecNewPlant>().toExtend<NewPlant>();
  });

  it("ApiError", () => {
    expectTypeOf<Known<z.infer<typeof ApiError>>>().toEqualTypeOf<SpecApiError>();
    expectTypeOf<SpecApiError>().toExtend<ApiError>();
  });

  // The one deliberate difference, by design: lossless mode's `id` is a bigint, not the spec's number.
  it("NewPlantLossless is NewPlant with a bigint id (input: bigint or number)", () => {
    expectTypeOf<NewPlantLossless>().toEqualTypeOf<Flat<Omit<SpecNewPlant, "id"> & { id: bigint }>>();
    expectTypeOf<z.infer<typeof NewPlantLossless>>().toExtend<NewPlantLossless>();
    expectTypeOf<z.input<typeof NewPlantLossless>["id"]>().toEqualTypeOf<number | bigint>();
    // @ts-expect-error the comparison above would fail with the spec's number id
    expectTypeOf<NewPlantLossless>().toEqualTypeOf<Flat<SpecNewPlant>>();
  });
});

describe("parseNewPlant's overloads follow the mode", () => {
  it("types the value by mode", () => {
    expectTypeOf(parseNewPlant("")).toEqualTypeOf<ParseResult<NewPlantLossless>>();
    expectTypeOf(parseNewPlant("", { mode: "safe" })).toEqualTypeOf<ParseResult<NewPlant>>();
    expectTypeOf(parseNewPlant("", { mode: "lossless" })).toEqualTypeOf<ParseResult<NewPlantLossless>>();
    const mode = "lossless" as "safe" | "lossless";
    expectTypeOf(parseNewPlant(new Uint8Array(), { mode })).toEqualTypeOf<
      ParseResult<NewPlant | NewPlantLossless>
    >();
  });
});
