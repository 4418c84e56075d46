import type { Command } from "commander";
import { eventOptions, withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store events`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const events = program
    .command("events")
    .description("List the webhooks (event types) of the contract, or of --spec")
    .option("--json", "the catalog: type, name, path, JSON Schema, examples, responses");
  withExamples(
    eventOptions(events),
    "plant-store events",
    "plant-store events --spec openapi.yaml --json",
  ).action(async (options) => (await import("./events.js")).events(options));
}
