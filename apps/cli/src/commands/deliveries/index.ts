import { DELIVERY_STATES, PAGE_SIZE } from "@plant-store/core";
import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";

const load = () => import("./deliveries.js");

/**
 * Declares `plant-store deliveries list|show|resend`; their implementation loads when one runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const deliveries = program
    .command("deliveries")
    .description("Inspect and resend deliveries")
    .addHelpText("after", ADMIN_EXAMPLES);
  adminOptions(
    deliveries
      .command("list")
      .description("List deliveries, newest first, one page at a time")
      // The states and page sizes are checked with the admin API's schemas when the command runs; the help names
      // the same rules from core, which the CLI loads anyway.
      .option("--state <state>", `only deliveries in this state: ${DELIVERY_STATES.join(", ")}`)
      .option("--subscription <id>", "only this subscription's")
      .option("--limit <n>", `page size, 1 to ${PAGE_SIZE.max} (the sender's default: ${PAGE_SIZE.default})`)
      .option("--cursor <cursor>", "the next page, as printed after the previous one"),
    "deliveries list --state failed",
    "deliveries list --subscription sub_… --limit 200",
    "deliveries list --cursor …   # the next page",
  ).action(async (options) => (await load()).list(options));
  adminOptions(
    deliveries
      .command("show")
      .description("Show a delivery and its attempts")
      .argument("<id>", "a delivery id"),
    "deliveries show 42",
  ).action(async (id, options) => (await load()).show(id, options));
  adminOptions(
    deliveries.command("resend").description("Queue a delivery again").argument("<id>", "a delivery id"),
    "deliveries resend 42",
  ).action(async (id, options) => (await load()).resend(id, options));
}
