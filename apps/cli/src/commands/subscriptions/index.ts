import { type Command, Option } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";
import { repeatable } from "../../repeatable.js";

const load = () => import("./subscriptions.js");

/**
 * Declares `plant-store subscriptions add|list|show|update|disable|enable|rotate`; their implementation loads when one
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
    fieldOptions(
      subs
        .command("add")
        .description("Subscribe a receiver's URL (token and secret are generated when omitted, shown once)")
        .argument("<url>", "the receiver's endpoint")
        .option("--token <token>", "the receiver's bearer token")
        .option("--secret <whsec>", "the signing secret")
        .option("--event-types <list>", "the event types it receives, comma-separated (default: every type)")
        .option("--signing <scheme>", "symmetric (v1, default), asymmetric (v1a) or both")
        .option(
          "--application <app>",
          "the application it belongs to, id (app_…) or uid (default: the default one)",
        ),
    ),
    "subscriptions add https://plants.example.com/plant/webhook",
    "subscriptions add https://plants.example.com/hooks --event-types newPlant,plantSold",
    "subscriptions add https://plants.example.com/plant/webhook --token psk_… --secret whsec_…",
    "subscriptions add https://acme.example/hooks --application cust_42 --uid ep_1 --rate-limit 5 --header x-tenant:acme",
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

/** The flags of a subscription's own fields and endpoint options (add and update). */
function fieldOptions(command: Command): Command {
  return command
    .option("--uid <uid>", "your own id for it, unique within its application")
    .option("--description <text>", "a description (at most 500 characters)")
    .addOption(repeatable("--metadata <key=value>", "metadata of your own (replaces the whole map)"))
    .option(
      "--rate-limit <per-second>",
      "most deliveries started per second, across every sender ('none': no limit)",
    )
    .addOption(
      repeatable("--header <name:value>", "a header added to every delivery (replaces the whole set)"),
    );
}

/** The subcommands that change a subscription. */
function registerChanges(subs: Command): void {
  adminOptions(
    fieldOptions(
      subs
        .command("update")
        .description("Change a subscription's URL, event types, signing, fields or endpoint options")
        .argument("<id>", "sub_…")
        .option("--url <url>", "the receiver's new endpoint")
        .option("--event-types <list>", "the event types it receives, comma-separated")
        .option("--all-types", "receive every event type")
        .option("--signing <scheme>", "symmetric (v1), asymmetric (v1a) or both")
        .option("--no-headers", "remove every added header"),
    ),
    "subscriptions update sub_… --rate-limit 5 --header x-tenant:acme",
    "subscriptions update sub_… --rate-limit none --no-headers",
  ).action(async (id, options) => (await load()).update(id, options));
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
