import { type Command, Option } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";

const load = () => import("./subscriptions.js");

/**
 * Declares `plant-store subscriptions add|list|show|disable|enable|rotate`; their implementation loads when one
 * runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const subs = program
    .command("subscriptions")
    .description("Manage the sender's subscriptions")
    .addHelpText("after", ADMIN_EXAMPLES);
  adminOptions(
    subs
      .command("add")
      .description("Subscribe a receiver's URL (token and secret are generated when omitted, shown once)")
      .argument("<url>", "the receiver's endpoint")
      .option("--token <token>", "the receiver's bearer token")
      .option("--secret <whsec>", "the signing secret")
      .option("--event-types <list>", "the event types it receives, comma-separated (default: every type)")
      .option("--signing <scheme>", "symmetric (v1, default), asymmetric (v1a) or both"),
    "subscriptions add https://plants.example.com/plant/webhook",
    "subscriptions add https://plants.example.com/hooks --event-types newPlant,plantSold",
    "subscriptions add https://plants.example.com/plant/webhook --token psk_… --secret whsec_…",
  ).action(async (url, options) => (await load()).add(url, options));
  adminOptions(
    subs.command("list").description("List every subscription"),
    "subscriptions list",
    "subscriptions list --json | jq -r '.data[].url'",
  ).action(async (options) => (await load()).list(options));
  adminOptions(
    subs.command("show").description("Show one subscription").argument("<id>", "sub_…"),
    "subscriptions show sub_…",
  ).action(async (id, options) => (await load()).show(id, options));
  registerChanges(subs);
}

/** The subcommands that change a subscription. */
function registerChanges(subs: Command): void {
  adminOptions(
    subs
      .command("disable")
      .description("Stop delivering to a subscription")
      .argument("<id>", "sub_…")
      .option("--reason <text>", "why (shown with the subscription)"),
    "subscriptions disable sub_… --reason 'receiver down for maintenance'",
  ).action(async (id, options) => (await load()).disable(id, options));
  adminOptions(
    subs.command("enable").description("Deliver to a subscription again").argument("<id>", "sub_…"),
    "subscriptions enable sub_…",
  ).action(async (id, options) => (await load()).enable(id, options));
  adminOptions(
    subs
      .command("rotate")
      .description("Replace a subscription's token or signing secret")
      .argument("<id>", "sub_…")
      .addOption(
        new Option("--kind <kind>", "what to rotate").choices(["token", "secret"]).makeOptionMandatory(),
      )
      .option("--value <value>", "the new value (generated when omitted)")
      .option("--grace <seconds>", "secrets: how long the old one keeps signing"),
    "subscriptions rotate sub_… --kind token",
    "subscriptions rotate sub_… --kind secret --grace 86400",
  ).action(async (id, options) => (await load()).rotate(id, options));
}
