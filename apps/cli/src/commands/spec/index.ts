import type { Command } from "commander";
import { withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store spec`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  withExamples(
    program
      .command("spec")
      .description("Print the OpenAPI document (YAML, or JSON with --json)")
      .option("--json", "as JSON"),
    "plant-store spec > openapi.yaml",
    "plant-store spec --json | jq .webhooks",
  ).action(async (options) => (await import("./spec.js")).spec(options));
}
