/**
 * The New Plant event: zod schemas equal to the spec's JSON Schema, a parser that never rounds an int64 id
 * (safe `number` mode by default, `bigint` lossless mode on request), and a bigint-safe serializer.
 *
 * @module
 * @example
 * ```ts
 * import { parseNewPlant, serializeNewPlant } from "@plant-store/core";
 * const parsed = parseNewPlant(body, { mode: "lossless" });
 * if (parsed.ok) console.log(serializeNewPlant(parsed.value));
 * else console.log(parsed.kind === "json" ? 400 : 422, parsed.message);
 * ```
 */
export { ApiError } from "./api-error.js";
export { type CompiledSchema, compileSchema, type ParseMode } from "./compile-schema.js";
export type { Issue } from "./issues.js";
export { isNumberLiteral, type NumberLiteral } from "./number-literal.js";
export { parseNewPlant } from "./parse.js";
export { eventValidator, type ParseOptions, type ParseResult, parseEvent } from "./parse-event.js";
export { NewPlant, NewPlantLossless, newPlantEntry, Plant } from "./plant.js";
export { serializeEvent, serializeNewPlant } from "./serialize.js";
