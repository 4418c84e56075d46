import type {
  ApiError as SpecApiError,
  NewPlant as SpecNewPlant,
  Plant as SpecPlant,
} from "@plant-store/spec";
import { describe, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import type { ApiError } from "./api-error.js";
import type { ParseResult } from "./parse.js";
import { parseNewPlant } from "./parse.js";
import type { NewPlant, NewPlantLossless, Plant } from "./plant.js";

// Checked by `tsc` (the package's typecheck), which compiles this file; at run time these are no-ops.

/** The declared properties of T, without an index signature. */
type Known<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K];
};

describe("schema types equal the spec's generated types", () => {
  // The one deliberate difference: the schemas are loose objects (the spec has no `additionalProperties:
  // false`), so their types add the index signature `[key: string]: unknown` for the properties they keep.
  // Minus that signature they are exactly the spec's types; with it, every spec value still fits.
  it("Plant", () => {
    expectTypeOf<Known<z.infer<typeof Plant>>>().toEqualTypeOf<SpecPlant>();
    expectTypeOf<z.infer<typeof Plant>>().toEqualTypeOf<Plant>();
    expectTypeOf<Plant[string]>().toEqualTypeOf<unknown>();
    expectTypeOf<SpecPlant>().toExtend<Plant>();
  });

  it("NewPlant", () => {
    expectTypeOf<Known<z.infer<typeof NewPlant>>>().toEqualTypeOf<Known<SpecNewPlant>>();
    expectTypeOf<z.infer<typeof NewPlant>>().toEqualTypeOf<NewPlant>();
    expectTypeOf<NewPlant[string]>().toEqualTypeOf<unknown>();
    expectTypeOf<SpecNewPlant>().toExtend<NewPlant>();
    expectTypeOf<Known<NewPlant>>().toExtend<SpecNewPlant>();
  });

  it("ApiError", () => {
    expectTypeOf<Known<z.infer<typeof ApiError>>>().toEqualTypeOf<SpecApiError>();
    expectTypeOf<SpecApiError>().toExtend<ApiError>();
  });

  // The second deliberate difference, by design: lossless mode's `id` is a bigint, not the spec's number.
  it("NewPlantLossless is NewPlant with a bigint id (input: bigint or number)", () => {
    expectTypeOf<Known<NewPlantLossless>>().toEqualTypeOf<Known<Omit<SpecNewPlant, "id"> & { id: bigint }>>();
    expectTypeOf<z.input<typeof NewPlantLossless>["id"]>().toEqualTypeOf<number | bigint>();
    // @ts-expect-error the comparison above would fail with the spec's number id
    expectTypeOf<Known<NewPlantLossless>>().toEqualTypeOf<Known<SpecNewPlant>>();
  });
});

describe("parseNewPlant's overloads follow the mode", () => {
  it("types the value by mode", () => {
    expectTypeOf(parseNewPlant("")).toEqualTypeOf<ParseResult<NewPlant>>();
    expectTypeOf(parseNewPlant("", { mode: "safe" })).toEqualTypeOf<ParseResult<NewPlant>>();
    expectTypeOf(parseNewPlant("", { mode: "lossless" })).toEqualTypeOf<ParseResult<NewPlantLossless>>();
    const mode = "lossless" as "safe" | "lossless";
    expectTypeOf(parseNewPlant(new Uint8Array(), { mode })).toEqualTypeOf<
      ParseResult<NewPlant | NewPlantLossless>
    >();
  });
});
