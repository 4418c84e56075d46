import { checkBody } from "../options.js";
import type { ParseMode } from "./compile-schema.js";
import { type ParseResult, parseEvent } from "./parse-event.js";
import { type NewPlant, type NewPlantLossless, newPlantEntry } from "./plant.js";

/**
 * Parses and validates a New Plant payload from the raw body: {@link parseEvent} on the catalog's New Plant entry.
 * The default mode is `lossless` (every int64 `id` accepted, as a `bigint`); `{ mode: "safe" }` gives a `number`
 * id and refuses ids beyond ±(2^53-1) at `/id` rather than round them.
 *
 * @example
 * ```ts
 * const big = parseNewPlant('{"id": 9223372036854775807, "name": "x"}');
 * if (big.ok) big.value.id; // 9223372036854775807n
 * const safe = parseNewPlant('{"id": 1, "name": "Monstera"}', { mode: "safe" });
 * if (safe.ok) safe.value.id; // 1
 * ```
 */
export function parseNewPlant(
  raw: string | Uint8Array,
  options?: { mode?: "lossless" | undefined },
): ParseResult<NewPlantLossless>;
export function parseNewPlant(raw: string | Uint8Array, options: { mode: "safe" }): ParseResult<NewPlant>;
export function parseNewPlant(
  raw: string | Uint8Array,
  options?: { mode?: ParseMode | undefined },
): ParseResult<NewPlant | NewPlantLossless>;
export function parseNewPlant(
  raw: string | Uint8Array,
  options: { mode?: ParseMode | undefined } = {},
): ParseResult<NewPlant | NewPlantLossless> {
  checkBody("parseNewPlant", raw);
  return parseEvent(newPlantEntry, raw, options) as ParseResult<NewPlant | NewPlantLossless>;
}
