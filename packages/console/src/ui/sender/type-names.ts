import { type EventType, typeName } from "../api.js";

/**
 * The event types a subscription receives, by name (`null`: every type, also those added later).
 *
 * @example
 * ```ts
 * typeNames(["plantSold"], types); // "Plant Sold"
 * ```
 */
export function typeNames(taken: readonly string[] | null, types: readonly EventType[]): string {
  if (taken === null) return "every type";
  return taken.map((type) => typeName(type, types)).join(", ");
}
