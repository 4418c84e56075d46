import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";

/**
 * Declares `plant-store recover <subscription>`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  adminOptions(
    program
      .command("recover")
      .description("Requeue a subscription's failed deliveries since a time")
      .addHelpText("after", ADMIN_EXAMPLES)
      .argument("<subscription>")
      .requiredOption("--since <date-time>"),
  ).action(async (id, options) => (await import("./recover.js")).recover(id, options));
}
