import { document } from "@plant-store/spec";

/** An event type of the contract: a webhook operation's `operationId`, with its summary. */
export interface EventType {
  id: string;
  name: string;
}

/**
 * Every event type the contract describes, read from the document's `webhooks` (so a webhook added to
 * openapi.yaml shows up here without an edit).
 *
 * @example
 * ```ts
 * eventTypes(); // [{ id: "newPlant", name: "New Plant" }]
 * ```
 */
export function eventTypes(): EventType[] {
  const webhooks = (document as { webhooks?: Record<string, Record<string, unknown>> }).webhooks ?? {};
  const found: EventType[] = [];
  for (const [path, item] of Object.entries(webhooks)) {
    for (const operation of Object.values(item)) {
      const op = operation as { operationId?: string; summary?: string } | null;
      if (op && typeof op === "object" && op.operationId) {
        found.push({ id: op.operationId, name: op.summary ?? path });
      }
    }
  }
  return found;
}
