import { numberOption } from "../options.js";
import type { DedupStore } from "./types.js";

/**
 * An in-memory {@link DedupStore} that keeps the last `max` ids (oldest forgotten first).
 * Enough for one process; use a durable store (the receiver's inbox) across restarts. `max` must be an integer
 * ≥ 1 (`PlantStoreError` `invalid_option` otherwise).
 *
 * @example
 * ```ts
 * const dedup = createMemoryDedup({ max: 10_000 });
 * dedup.add("msg_1");
 * dedup.has("msg_1"); // true
 * ```
 */
export function createMemoryDedup(options: { max?: number | undefined } = {}): DedupStore {
  const max = numberOption("max", options.max, 10_000, { min: 1, integer: true, unit: "(ids kept)" });
  const seen = new Set<string>();
  return {
    has: (id) => seen.has(id),
    add(id) {
      seen.delete(id);
      seen.add(id);
      if (seen.size > max) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
    },
  };
}
