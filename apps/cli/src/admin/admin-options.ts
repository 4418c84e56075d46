import { DEFAULT_ADMIN_TIMEOUT_MS } from "@plant-store/admin-api/defaults";
import { type Command, Option } from "commander";

/** The help of the admin command groups: one example of each. */
export const ADMIN_EXAMPLES = `
Examples (with PLANT_STORE_SENDER_URL and PLANT_STORE_ADMIN_TOKEN set):
  plant-store subscriptions add https://plants.example.com/plant/webhook
  plant-store subscriptions rotate sub_… --kind secret --grace 86400
  plant-store publish --id 42 --name Fern --idempotency-key order-42
  plant-store deliveries list --state failed
  plant-store recover sub_… --since 2026-11-22T00:00:00Z`;

/**
 * The options every command that calls the sender's admin API takes (where it is, its token, the deadline, the
 * output), and the command's examples after its help.
 *
 * @example
 * ```ts
 * adminOptions(subscriptions.command("list").description("List every subscription"), "subscriptions list");
 * ```
 */
export function adminOptions(command: Command, ...examples: string[]): Command {
  command
    .addOption(new Option("--sender-url <url>", "the sender's admin API").env("PLANT_STORE_SENDER_URL"))
    .addOption(new Option("--admin-token <token>", "admin bearer token").env("PLANT_STORE_ADMIN_TOKEN"))
    .option("--timeout <ms>", `per request to the sender, in ms (default ${DEFAULT_ADMIN_TIMEOUT_MS})`)
    .option("--json", "machine-readable output");
  if (examples.length === 0) return command;
  return command.addHelpText(
    "after",
    `\nExample${examples.length > 1 ? "s" : ""} (with PLANT_STORE_SENDER_URL and PLANT_STORE_ADMIN_TOKEN set):\n${examples.map((e) => `  plant-store ${e}`).join("\n")}`,
  );
}
