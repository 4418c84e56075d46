import { catalog, DEFAULT_EVENT_TYPE, document, type WebhookEntry } from "@plant-store/spec";
import type * as z from "zod";
import { compileSchema } from "./compile-schema.js";
import { eventValidator } from "./parse-event.js";

// Nothing here is written per event: each schema is compiled from the spec's JSON Schema (see compile-schema.ts).
// They stay exported for code that composes zod schemas; `parseEvent` is the way to read a raw body.

/** The catalog entry of New Plant, the default webhook. */
export const newPlantEntry = catalog.find((entry) => entry.type === DEFAULT_EVENT_TYPE) as WebhookEntry;

/**
 * A plant (`components.schemas.Plant`): a string `name` (may be empty), an optional string `tag`, any other
 * properties kept as they are.
 *
 * @example
 * ```ts
 * Plant.parse({ name: "Monstera", tag: "tropical", color: "green" }); // all three keys kept
 * ```
 */
export const Plant = compileSchema(document.components.schemas.Plant, { mode: "safe", name: "plant" })
  .zod as z.ZodType<Plant>;
/**
 * A plant as the spec declares it (`components.schemas.Plant`): `{ name: string; tag?: string }`. Properties the
 * spec does not declare pass validation and stay in the parsed value at run time, but are not part of the type.
 */
export type Plant = { name: string; tag?: string };

/**
 * The New Plant event (`components.schemas.NewPlant`) in safe mode: `id` is a `number` within ±(2^53-1); beyond
 * that it is refused with a message that points to the lossless mode.
 *
 * @example
 * ```ts
 * NewPlant.parse({ id: 1, name: "Monstera" }); // { id: 1, name: "Monstera" }
 * NewPlant.safeParse({ id: 2 ** 60, name: "x" }).success; // false
 * ```
 */
export const NewPlant = eventValidator(newPlantEntry, "safe").zod as z.ZodType<NewPlant>;
/** A New Plant event whose `id` is a safe-integer `number`: `{ id: number; name: string; tag?: string }`. */
export type NewPlant = { id: number; name: string; tag?: string };

/**
 * The New Plant event in lossless mode (the default of every parser and adapter): `id` is any int64, output as a
 * `bigint` (input: a `bigint`, or a safe-integer `number`).
 *
 * @example
 * ```ts
 * NewPlantLossless.parse({ id: 9223372036854775807n, name: "x" }).id; // 9223372036854775807n
 * NewPlantLossless.parse({ id: 5, name: "x" }).id; // 5n
 * ```
 */
export const NewPlantLossless = eventValidator(newPlantEntry, "lossless").zod as z.ZodType<
  NewPlantLossless,
  Omit<NewPlantLossless, "id"> & { id: number | bigint }
>;
/** A New Plant event whose `id` is a `bigint` over the whole int64 range: `{ id: bigint; name: string; tag?: string }`. */
export type NewPlantLossless = { id: bigint; name: string; tag?: string };
