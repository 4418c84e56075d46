import type { Command } from "commander";
import { eventOptions, withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store example`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  withExamples(
    eventOptions(program.command("example"))
      .description("Print the spec's example payload of a webhook (default New Plant)")
      .option("--json", "the same, compact"),
    "plant-store example > plant.json",
    "plant-store example | plant-store validate -",
  ).action(async (options) => (await import("./example.js")).example(options));
}
