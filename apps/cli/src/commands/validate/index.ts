import { type Command, Option } from "commander";
import { eventOptions, withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store validate [file]`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  withExamples(
    eventOptions(program.command("validate"))
      .description(
        "Validate payloads of a webhook (default New Plant): one JSON document or NDJSON, from a file or stdin",
      )
      .argument("[file]", "a file, or - for stdin", "-")
      .option("--safe", "also refuse ids beyond 2^53, which a JavaScript number would round")
      .addOption(new Option("--lossless").hideHelp()) // the default now; still accepted
      .option("--json", "one result per payload"),
    "plant-store validate plant.json",
    "cat plants.ndjson | plant-store validate -",
  ).action(async (file, options) => (await import("./validate.js")).validate(file, options));
}
