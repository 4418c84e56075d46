import { PlantStoreError } from "../errors.js";
import { stringifyJson } from "../json/stringify.js";
import { describeIssues, toIssues } from "./issues.js";
import { type NewPlant, NewPlantLossless } from "./plant.js";

/**
 * Writes a New Plant event as JSON, the exact bytes to send. A `bigint` id (and any bigint among the extra
 * properties) is written as a bare integer literal with every digit. The event is validated first, so what
 * this emits is accepted by a receiver in the matching mode; throws `PlantStoreError` (`invalid_new_plant`)
 * otherwise, e.g. for an id outside int64, or a `number` id beyond 2^53-1 that may already be rounded.
 *
 * @example
 * ```ts
 * serializeNewPlant({ id: 9223372036854775807n, name: "Fern" }); // '{"id":9223372036854775807,"name":"Fern"}'
 * serializeNewPlant({ id: 1, name: "Monstera", tag: "tropical" }); // '{"id":1,"name":"Monstera","tag":"tropical"}'
 * ```
 */
export function serializeNewPlant(value: (NewPlant | NewPlantLossless) & { [key: string]: unknown }): string {
  // The lossless schema takes both id types and refuses unsafe numbers with advice that fits a sender.
  const result = NewPlantLossless.safeParse(value);
  if (!result.success) {
    const headline = "Cannot serialize the New Plant event: it does not match the NewPlant schema.";
    throw new PlantStoreError("invalid_new_plant", describeIssues(headline, toIssues(result.error)));
  }
  // The value itself, not zod's copy, so that key order and every property are kept.
  return stringifyJson(value);
}
