import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";

const load = () => import("./applications.js");

/**
 * Declares `plant-store applications add|list|show|update|delete|revoke-links`; their implementation loads when
 * one runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const apps = program
    .command("applications")
    .description("Manage the sender's applications (one per customer)")
    .addHelpText("after", ADMIN_EXAMPLES);
  adminOptions(
    apps
      .command("add")
      .description("Add an application")
      .argument("<uid>", "the customer's id in your system (unique)")
      .requiredOption("--name <name>", "its name, shown in its portal"),
    "applications add cust_42 --name 'Acme Gardens'",
  ).action(async (uid, options) => (await load()).add(uid, options));
  adminOptions(apps.command("list").description("List every application"), "applications list").action(
    async (options) => (await load()).list(options),
  );
  adminOptions(
    apps.command("show").description("Show one application").argument("<app>", "its id (app_…) or uid"),
    "applications show cust_42",
  ).action(async (app, options) => (await load()).show(app, options));
  adminOptions(
    apps
      .command("update")
      .description("Change an application's name or uid")
      .argument("<app>", "its id (app_…) or uid")
      .option("--name <name>", "the new name")
      .option("--uid <uid>", "the new uid"),
    "applications update cust_42 --name 'Acme Gardens Ltd'",
  ).action(async (app, options) => (await load()).update(app, options));
  adminOptions(
    apps
      .command("delete")
      .description("Delete an application with its subscriptions (their deliveries stop)")
      .argument("<app>", "its id (app_…) or uid"),
    "applications delete cust_42",
  ).action(async (app, options) => (await load()).remove(app, options));
  adminOptions(
    apps
      .command("revoke-links")
      .description("Revoke every portal link of an application handed out so far")
      .argument("<app>", "its id (app_…) or uid"),
    "applications revoke-links cust_42",
  ).action(async (app, options) => (await load()).revokeLinks(app, options));
}
