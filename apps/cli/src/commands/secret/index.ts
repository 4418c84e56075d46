import type { Command } from "commander";
import { withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store secret create`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const secret = withExamples(
    program.command("secret").description("Signing secrets (whsec_…)"),
    "plant-store secret create",
  );
  withExamples(
    secret
      .command("create")
      .description("Create a Standard Webhooks signing secret")
      .option("--json", "machine-readable output"),
    "plant-store secret create",
    "plant-store secret create --json | jq -r .secret",
  ).action(async (options) => (await import("./secret.js")).secretCreate(options));
}
