import { type Command, Option } from "commander";
import { repeatable } from "../../repeatable.js";

const load = () => import("./destinations.js");

const EXAMPLES = `
Examples (with PLANT_STORE_RECEIVER_URL and PLANT_STORE_ADMIN_TOKEN set):
  plant-store destinations create orders http://orders.internal/hooks --event-type newPlant --header x-api-key:k1
  plant-store destinations list
  plant-store destinations pause dst_…      # during a deploy: events queue
  plant-store destinations resume dst_…     # they drain in order
  plant-store destinations replay dst_… --failed`;

/** The options every `destinations` command takes: where the receiver is, its admin token, the output. */
function receiverOptions(command: Command, ...examples: string[]): Command {
  command
    .addOption(
      new Option("--receiver-url <url>", "the receiver (its admin API)").env("PLANT_STORE_RECEIVER_URL"),
    )
    .addOption(new Option("--admin-token <token>", "admin bearer token").env("PLANT_STORE_ADMIN_TOKEN"))
    .option("--timeout <ms>", "per request to the receiver (default 30000)")
    .option("--json", "machine-readable output");
  if (examples.length === 0) return command;
  return command.addHelpText("after", `\nExamples:\n${examples.map((e) => `  plant-store ${e}`).join("\n")}`);
}

/** The flags a destination's settings come from (create and update). */
function settingOptions(command: Command): Command {
  return command
    .addOption(repeatable("--event-type <type>", "an event type it takes (default: every type)"))
    .addOption(repeatable("--header <name:value>", "a header added to every forward"))
    .option("--signing <scheme>", "symmetric (v1, default), asymmetric (v1a) or both")
    .option("--ordered", "first in, first out: the head retries, later events wait")
    .option("--concurrent", "not ordered (the default)")
    .option("--max-in-flight <n>", "most forwards in flight at once ('none': the default)")
    .option("--rate-limit <per-second>", "most forwards started per second ('none': no limit)")
    .option("--attempt-timeout <ms>", "one attempt's budget ('none': the default)");
}

/**
 * Declares `plant-store destinations list|get|create|update|delete|pause|resume|enable|rotate-secret|secret|forwards|
 * replay`: the receiver's destinations; their implementation loads when one runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const dst = program
    .command("destinations")
    .description("Manage the receiver's destinations: where accepted events are handed on")
    .addHelpText("after", EXAMPLES);
  receiverOptions(
    dst.command("list").description("Every destination with its queue"),
    "destinations list",
  ).action(async (options) => (await load()).list(options));
  receiverOptions(
    dst.command("get").description("One destination").argument("<id>", "dst_…"),
    "destinations get dst_…",
  ).action(async (id, options) => (await load()).get(id, options));
  receiverOptions(
    settingOptions(
      dst
        .command("create")
        .description("Create a destination (its signing secret is generated when omitted)")
        .argument("<name>", "unique among destinations")
        .argument("<url>", "the service's http(s) endpoint")
        .option("--secret <whsec>", "the signing secret")
        .option("--paused", "start paused"),
    ),
    "destinations create orders http://orders.internal/hooks --ordered --rate-limit 50",
  ).action(async (name, url, options) => (await load()).create(name, url, options));
  receiverOptions(
    settingOptions(
      dst
        .command("update")
        .description("Change a destination")
        .argument("<id>", "dst_…")
        .option("--name <name>", "a new name")
        .option("--url <url>", "a new URL")
        .option("--all-types", "take every event type"),
    ),
    "destinations update dst_… --url http://orders-v2.internal/hooks",
  ).action(async (id, options) => (await load()).update(id, options));
  registerActions(dst);
}

/** The subcommands that act on one destination by id. */
function registerActions(dst: Command): void {
  const simple = [
    ["delete", "Delete a destination with its forwards"],
    ["pause", "Pause: events queue (e.g. during a deploy)"],
    ["resume", "Resume: the queue drains in order"],
    ["enable", "Take events again after a 410 disabled it"],
    ["secret", "Print the signing secret the service verifies with"],
  ] as const;
  for (const [name, description] of simple) {
    receiverOptions(
      dst.command(name).description(description).argument("<id>", "dst_…"),
      `destinations ${name} dst_…`,
    ).action(async (id, options) => (await load()).act(name, id, options));
  }
  receiverOptions(
    dst
      .command("rotate-secret")
      .description("Rotate the signing secret (the old one keeps signing for --grace)")
      .argument("<id>", "dst_…")
      .option("--value <whsec>", "the new secret (generated when omitted)")
      .option("--grace <seconds>", "how long the old one keeps signing"),
    "destinations rotate-secret dst_… --grace 3600",
  ).action(async (id, options) => (await load()).rotateSecret(id, options));
  receiverOptions(
    dst
      .command("forwards")
      .description("A destination's forwards, newest first")
      .argument("<id>", "dst_…")
      .option("--state <state>", "only forwards in this state")
      .option("--limit <n>", "page size")
      .option("--cursor <cursor>", "the next page"),
    "destinations forwards dst_… --state failed",
  ).action(async (id, options) => (await load()).forwards(id, options));
  receiverOptions(
    dst
      .command("replay")
      .description("Send events to it again: one event, every one since a time, or the failed ones")
      .argument("<id>", "dst_…")
      .option("--event <webhook-id>", "this event")
      .option("--since <time>", "forwards created at or after it (RFC 3339)")
      .option("--failed", "only the failed ones"),
    "destinations replay dst_… --event msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    "destinations replay dst_… --since 2026-11-27T09:00:00Z",
    "destinations replay dst_… --failed",
  ).action(async (id, options) => (await load()).replay(id, options));
}
