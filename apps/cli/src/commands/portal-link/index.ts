import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";

/**
 * Declares `plant-store portal-link <app>`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  adminOptions(
    program
      .command("portal-link")
      .description("A console link for one application's customer (its token is shown once)")
      .argument("<app>", "the application's id (app_…) or uid")
      .option("--expires-in <seconds>", "how long it works (60 to 86400; default 3600)")
      .addHelpText("after", ADMIN_EXAMPLES),
    "portal-link cust_42",
    "portal-link cust_42 --expires-in 86400 --json | jq -r .url",
  ).action(async (app, options) => (await import("./portal-link.js")).portalLink(app, options));
}
