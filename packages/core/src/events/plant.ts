import * as z from "zod";
import { describeValue } from "./describe.js";
import { LosslessId, SafeId } from "./id.js";

const name = z.string({
  error: (issue) =>
    issue.input === undefined
      ? 'name is missing. Add the plant\'s name as a JSON string (it may be empty), e.g. "name": "Monstera".'
      : `name must be a string; got ${describeValue(issue.input)}. Send it as a JSON string, e.g. "name": "Monstera".`,
});

const tag = z
  .string({
    error: (issue) =>
      `tag must be a string when present; got ${describeValue(issue.input)}. Send a string or leave tag out.`,
  })
  .optional();

const notAnObject = (what: string) => (issue: { input: unknown }) =>
  `${what}; got ${describeValue(issue.input)}. Send one plant as a JSON object, e.g. {"id": 1, "name": "Monstera"}.`;

// Loose objects: the spec's schemas do not forbid other properties (no `additionalProperties: false`), so
// unknown keys pass and are kept.

/**
 * A plant (`components.schemas.Plant`): a string `name` (may be empty), an optional string `tag`, any other
 * properties kept as they are.
 *
 * @example
 * ```ts
 * Plant.parse({ name: "Monstera", tag: "tropical", color: "green" }); // all three keys kept
 * ```
 */
export const Plant = z.looseObject(
  { name, tag },
  { error: notAnObject('A plant must be a JSON object with a string "name"') },
);
/**
 * A plant as the spec declares it (`components.schemas.Plant`): `{ name: string; tag?: string }`. Properties the
 * spec does not declare pass validation and stay in the parsed value at run time, but are not part of the type;
 * read them with `(value as Record<string, unknown>).color`, or from the raw body.
 */
export type Plant = { name: string; tag?: string };

const newPlantError = notAnObject(
  'A New Plant event must be a JSON object with an integer "id" and a string "name"',
);

/**
 * The New Plant event (`components.schemas.NewPlant`) in the default, safe mode: `id` is a `number` within
 * ±(2^53-1). Beyond that a JavaScript number cannot hold every int64, so such ids are refused with a message
 * that points to {@link NewPlantLossless}.
 *
 * @example
 * ```ts
 * NewPlant.parse({ id: 1, name: "Monstera" }); // { id: 1, name: "Monstera" }
 * NewPlant.safeParse({ id: 2 ** 60, name: "x" }).success; // false
 * ```
 */
export const NewPlant = z.looseObject({ id: SafeId, name, tag }, { error: newPlantError });
/**
 * A New Plant event whose `id` is a safe-integer `number`: exactly the spec's `NewPlant`,
 * `{ id: number; name: string; tag?: string }` (undeclared properties are kept at run time, see {@link Plant}).
 */
export type NewPlant = { id: number; name: string; tag?: string };

/**
 * The New Plant event in lossless mode: `id` is any int64, output as a `bigint` (input: a `bigint`, or a
 * safe-integer `number`).
 *
 * @example
 * ```ts
 * NewPlantLossless.parse({ id: 9223372036854775807n, name: "x" }).id; // 9223372036854775807n
 * NewPlantLossless.parse({ id: 5, name: "x" }).id; // 5n
 * ```
 */
export const NewPlantLossless = z.looseObject({ id: LosslessId, name, tag }, { error: newPlantError });
/**
 * A New Plant event whose `id` is a `bigint` over the whole int64 range: `{ id: bigint; name: string; tag?: string }`
 * (undeclared properties are kept at run time, see {@link Plant}).
 */
export type NewPlantLossless = { id: bigint; name: string; tag?: string };
