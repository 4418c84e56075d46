import type { Catalog, WebhookEntry } from "./types.js";

/**
 * Finds a webhook of a catalog by its event type (`newPlant`), its path (`/plant/webhook`) or its name
 * (`New Plant`, case-insensitive), as users type them on a command line.
 *
 * @example
 * ```ts
 * findEvent(catalog, "/plant/webhook")?.type; // "newPlant"
 * findEvent(catalog, "new plant")?.type; // "newPlant"
 * ```
 */
export function findEvent(catalog: Catalog, nameOrPath: string): WebhookEntry | undefined {
  const lower = nameOrPath.toLowerCase();
  return (
    catalog.find((entry) => entry.type === nameOrPath || entry.path === nameOrPath) ??
    catalog.find((entry) => entry.name.toLowerCase() === lower || entry.type.toLowerCase() === lower)
  );
}

/**
 * The message for an event type a catalog does not hold: what was asked, and what exists.
 *
 * @example
 * ```ts
 * unknownEventMessage(catalog, "plantEaten");
 * // 'Unknown event "plantEaten". Known events: newPlant (New Plant, POST /plant/webhook).'
 * ```
 */
export function unknownEventMessage(catalog: Catalog, asked: string): string {
  const known = catalog.map((entry) => `${entry.type} (${entry.name}, ${entry.method} ${entry.path})`);
  return `Unknown event ${JSON.stringify(asked.length > 100 ? `${asked.slice(0, 100)}…` : asked)}. Known events: ${known.join(", ")}.`;
}
