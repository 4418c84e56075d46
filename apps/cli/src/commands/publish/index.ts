import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";
import { payloadOptions } from "../../option-groups.js";

/**
 * Declares `plant-store publish`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  adminOptions(
    payloadOptions(
      program
        .command("publish")
        .description("Publish an event (default New Plant; --event for another) through the sender")
        .addHelpText("after", ADMIN_EXAMPLES),
    ),
  )
    .option("--idempotency-key <key>")
    .action(async (options) => (await import("./publish.js")).publish(options));
}
