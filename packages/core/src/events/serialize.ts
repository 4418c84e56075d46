import type { WebhookEntry } from "@plant-store/spec";
import { PlantStoreError } from "../errors.js";
import { stringifyJson } from "../json/stringify.js";
import { describeIssues, toIssues } from "./issues.js";
import { eventValidator } from "./parse-event.js";
import { type NewPlant, type NewPlantLossless, newPlantEntry } from "./plant.js";

/**
 * Writes an event as JSON, the exact bytes to send. A `bigint` (an int64 beyond 2^53) is written as a bare
 * integer literal with every digit. The value is validated against its webhook's schema first (lossless mode:
 * int64 as `bigint` or safe-integer `number`), so what this emits is accepted by a receiver; throws
 * `PlantStoreError` (`invalid_event`) otherwise, e.g. for a `number` beyond 2^53-1 that may already be rounded.
 *
 * @example
 * ```ts
 * serializeEvent(catalog[0], { id: 9223372036854775807n, name: "Fern" }); // '{"id":9223372036854775807,"name":"Fern"}'
 * ```
 */
export function serializeEvent(entry: WebhookEntry, value: unknown): string {
  const result = eventValidator(entry, "lossless").zod.safeParse(value);
  if (!result.success) {
    const headline = `Cannot serialize the ${entry.name} event: it does not match its schema.`;
    throw new PlantStoreError("invalid_event", describeIssues(headline, toIssues(result.error)));
  }
  // The value itself, not zod's copy, so that key order and every property are kept.
  return stringifyJson(value);
}

/**
 * {@link serializeEvent} for New Plant.
 *
 * @example
 * ```ts
 * serializeNewPlant({ id: 1, name: "Monstera", tag: "tropical" }); // '{"id":1,"name":"Monstera","tag":"tropical"}'
 * ```
 */
export function serializeNewPlant(value: (NewPlant | NewPlantLossless) & { [key: string]: unknown }): string {
  return serializeEvent(newPlantEntry, value);
}
