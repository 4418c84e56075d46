import { commandEvent, type EventOptions } from "../../events.js";
import { exampleText } from "../../payload.js";

/**
 * `plant-store example`: the spec's example payload.
 *
 * @example
 * ```ts
 * example({}); // prints { "id": 1, "name": "Monstera deliciosa", "tag": "tropical" }
 * ```
 */
export async function example(options: EventOptions & { json?: boolean }): Promise<void> {
  const { entry } = await commandEvent(options);
  const text = exampleText(entry);
  process.stdout.write(`${options.json ? JSON.stringify(JSON.parse(text)) : text}\n`);
}
