import { Command, CommanderError, Option } from "commander";
import { CliError } from "./output.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Parses the arguments and runs one command; resolves with the exit code (0 ok, 1 the checked thing failed,
 * 2 usage error). Command modules are imported only when their command runs.
 *
 * @example
 * ```ts
 * process.exitCode = await run(["send", "http://127.0.0.1:4000/plant/webhook", "--token", "psk_…"]);
 * ```
 */
export async function run(argv: string[]): Promise<number> {
  const program = new Command("plant-store")
    .description("The developer's tool for the Plant Store New Plant webhook (WEBHOOK /plant/webhook).")
    .version(await version(), "-V, --version")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  // Which webhook of which document: every command that handles a payload takes both.
  const event = (cmd: Command) =>
    cmd
      .option(
        "--event <name>",
        "the webhook: event type, path or name (default New Plant; see plant-store events)",
      )
      .addOption(
        new Option("--spec <file>", "an OpenAPI document whose webhooks to use (default: built in)").env(
          "PLANT_STORE_SPEC",
        ),
      );
  const payload = (cmd: Command) =>
    event(cmd)
      .option("--data <json>", "the payload as JSON text (sent byte for byte)")
      .option("--file <path>", "read the payload from a file, or - for stdin")
      .option(
        "--id <int>",
        "build the payload from fields (any of them; the rest from the spec's example): id",
      )
      .option("--name <text>", "name")
      .option("--tag <text>", "tag");

  payload(
    program
      .command("send")
      .description("Send webhooks (default New Plant; --event for another) to a receiver")
      .argument("<url>", "the receiver's endpoint, e.g. http://127.0.0.1:4000/plant/webhook")
      .option("--token <token>", "bearer token (env PLANT_STORE_TOKEN)")
      .option("--secret <whsec>", "sign with this Standard Webhooks secret (env PLANT_STORE_WEBHOOK_SECRET)")
      .option("--count <n>", "send n webhooks with unique ids", "1")
      .option("--concurrency <n>", "requests in flight with --count", "10")
      .option("--timeout <ms>", "per request", "15000")
      .option("--json", "machine-readable output"),
  )
    .addHelpText(
      "after",
      `
Examples:
  plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --secret whsec_…
  plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --name Fern --id 42 --json
  plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --count 1000 --concurrency 50
  plant-store send http://127.0.0.1:4000/plant/sold --token psk_… --spec openapi.yaml --event plantSold`,
    )
    .action(async (url, options) => (await import("./commands/send.js")).send(url, options));

  event(
    program
      .command("events")
      .description("List the webhooks (event types) of the contract, or of --spec")
      .option("--json", "the catalog: type, name, path, JSON Schema, examples, responses"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store events\n  plant-store events --spec openapi.yaml --json",
    )
    .action(async (options) => (await import("./commands/misc.js")).events(options));

  event(program.command("listen"))
    .description("Run a local receiver that prints every verified, valid event (and optionally forwards it)")
    .option("--port <n>", "listen port", "4100")
    .option("--host <addr>", "listen address", "127.0.0.1")
    .option("--token <token>", "accepted bearer token (generated and printed when omitted)")
    .option("--secret <whsec>", "required signing secret (generated and printed when omitted)")
    .option("--db <target>", "keep events in SQLite or PostgreSQL (default: in memory)")
    .option("--forward-to <url>", "relay each event's exact bytes and headers to this URL")
    .option("--retries <n>", "retries of a failed forward, with backoff from 1 s", "5")
    // Every int64 id is accepted (the contract's range); --lossless, which used to turn that on, is still accepted.
    .addOption(new Option("--lossless").hideHelp())
    .option("--json", "one JSON line per event (NDJSON)")
    .addHelpText(
      "after",
      `
Examples:
  plant-store listen
  plant-store listen --token psk_… --secret whsec_… --forward-to http://127.0.0.1:3000/plant/webhook
  plant-store listen --json | jq .payload.name
  plant-store listen --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook`,
    )
    .action(async (options) => (await import("./commands/listen.js")).listen(options));

  program
    .command("replay")
    .description("Forward events that `listen --db` kept, again (by id, since a time, or those that failed)")
    .requiredOption("--db <target>", "the store listen kept them in (SQLite path or postgres://…)")
    .requiredOption("--forward-to <url>", "where to send them")
    .option("--id <webhook-id>", "an event to replay (repeatable)", collect)
    .option("--since <time>", "every event received since this RFC 3339 time")
    .option("--failed", "every event never forwarded successfully")
    .option("--token <token>", "bearer token for the downstream (env PLANT_STORE_TOKEN)")
    .option("--secret <whsec>", "sign each event anew (same webhook-id, fresh timestamp)")
    .option("--retries <n>", "retries of a failed forward, with backoff from 1 s", "0")
    .option("--json", "one JSON line per event")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store replay --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook --failed --secret whsec_…\n  plant-store replay --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook --id msg_2zQz…",
    )
    .action(async (options) => (await import("./commands/replay.js")).replay(options));

  event(program.command("validate"))
    .description(
      "Validate payloads of a webhook (default New Plant): one JSON document or NDJSON, from a file or stdin",
    )
    .argument("[file]", "a file, or - for stdin", "-")
    .option("--safe", "also refuse ids beyond 2^53, which a JavaScript number would round")
    .addOption(new Option("--lossless").hideHelp()) // the default now; still accepted
    .option("--json", "one result per payload")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store validate plant.json\n  cat plants.ndjson | plant-store validate -",
    )
    .action(async (file, options) => (await import("./commands/validate.js")).validate(file, options));

  event(program.command("example"))
    .description("Print the spec's example payload of a webhook (default New Plant)")
    .option("--json", "the same, compact")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store example > plant.json\n  plant-store example | plant-store validate -",
    )
    .action(async (options) => (await import("./commands/misc.js")).example(options));

  program
    .command("spec")
    .description("Print the OpenAPI document (YAML, or JSON with --json)")
    .option("--json", "as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store spec > openapi.yaml\n  plant-store spec --json | jq .webhooks",
    )
    .action(async (options) => (await import("./commands/misc.js")).spec(options));

  const token = program
    .command("token")
    .description("Bearer tokens (psk_…)")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store token create\n  plant-store token hash psk_…   # for the receiver's PLANT_STORE_TOKEN\n  plant-store token check psk_…",
    );
  token
    .command("create")
    .description("Create a token (and its sha256: hash for the receiver's configuration)")
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store token create\n  plant-store token create --json | jq -r .hash",
    )
    .action(async (options) => (await import("./commands/misc.js")).tokenCreate(options));
  token
    .command("hash")
    .description("Print the sha256: hash of a token, for the receiver's PLANT_STORE_TOKEN")
    .argument("<token>", "a psk_ token")
    .option("--json", "machine-readable output")
    .addHelpText("after", "\nExample:\n  plant-store token hash psk_…")
    .action(async (value, options) => (await import("./commands/misc.js")).tokenHash(value, options));
  token
    .command("check")
    .description("Check a token's format and checksum (exit 1 if damaged)")
    .argument("<token>", "a psk_ token")
    .option("--json", "machine-readable output")
    .addHelpText("after", "\nExample:\n  plant-store token check psk_… && echo intact")
    .action(async (value, options) => (await import("./commands/misc.js")).tokenCheck(value, options));

  program
    .command("secret")
    .description("Signing secrets (whsec_…)")
    .addHelpText("after", "\nExample:\n  plant-store secret create")
    .command("create")
    .description("Create a Standard Webhooks signing secret")
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store secret create\n  plant-store secret create --json | jq -r .secret",
    )
    .action(async (options) => (await import("./commands/misc.js")).secretCreate(options));

  program
    .command("keypair")
    .description("ed25519 key pairs for v1a signatures (whsk_… / whpk_…)")
    .addHelpText("after", "\nExample:\n  plant-store keypair create")
    .command("create")
    .description(
      "Create a Standard Webhooks ed25519 key pair: the sender signs with whsk_, receivers verify with whpk_",
    )
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      "\nExamples:\n  plant-store keypair create\n  plant-store keypair create --json | jq -r .publicKey",
    )
    .action(async (options) => (await import("./commands/misc.js")).keypairCreate(options));

  payload(
    program
      .command("sign")
      .description("Print the Standard Webhooks headers for a body")
      .option("--secret <whsec>", "signing secret, v1 (repeatable)", collect)
      .option("--private-key <whsk>", "ed25519 private key, v1a (repeatable)", collect)
      .option("--msg-id <id>", "webhook-id (default: a new msg_ id)")
      .option("--timestamp <unix>", "webhook-timestamp (default: now)")
      .option("--example", "sign the spec's example payload")
      .option("--json", "machine-readable output"),
  )
    .addHelpText(
      "after",
      '\nThe body is required: --data, --file, --id/--name/--tag or --example.\n\nExamples:\n  plant-store sign --secret whsec_… --data \'{"id":1,"name":"Fern"}\'\n  plant-store sign --secret whsec_… --file body.json --json\n  plant-store sign --private-key whsk_… --data \'{"id":1,"name":"Fern"}\'',
    )
    .action(async (options) => (await import("./commands/signing.js")).signCommand(options));

  payload(
    program
      .command("verify")
      .description("Verify a signed webhook, and say why it fails")
      .option("--secret <whsec>", "signing secret, v1 (repeat for rotation)", collect)
      .option("--public-key <whpk>", "ed25519 public key, v1a (repeat for rotation)", collect)
      .option("-H, --header <header>", "a received header, 'name: value' (repeatable)", collect)
      .option("--msg-id <id>", "webhook-id")
      .option("--timestamp <unix>", "webhook-timestamp")
      .option("--signature <sig>", "webhook-signature")
      .option("--tolerance <s>", "allowed clock skew in seconds", "300")
      .option("--example", "verify the spec's example payload")
      .option("--json", "machine-readable output"),
  )
    .addHelpText(
      "after",
      "\nThe body is required: --data, --file, --id/--name/--tag or --example.\n\nExample:\n  plant-store verify --secret whsec_… -H 'webhook-id: msg_1' -H 'webhook-timestamp: 1732…' -H 'webhook-signature: v1,…' --file body.json",
    )
    .action(async (options) => (await import("./commands/signing.js")).verifyCommand(options));

  const admin = (cmd: Command, ...examples: string[]) => {
    cmd
      .addOption(new Option("--sender-url <url>", "the sender's admin API").env("PLANT_STORE_SENDER_URL"))
      .addOption(new Option("--admin-token <token>", "admin bearer token").env("PLANT_STORE_ADMIN_TOKEN"))
      .option("--timeout <ms>", "per request to the sender (default 30000)")
      .option("--json", "machine-readable output");
    if (examples.length === 0) return cmd;
    return cmd.addHelpText(
      "after",
      `\nExample${examples.length > 1 ? "s" : ""} (with PLANT_STORE_SENDER_URL and PLANT_STORE_ADMIN_TOKEN set):\n${examples.map((e) => `  plant-store ${e}`).join("\n")}`,
    );
  };
  const adminAction =
    (name: string) =>
    async (...args: unknown[]) =>
      (await import("./commands/admin.js")).adminCommand(name, args);

  const adminExamples = `
Examples (with PLANT_STORE_SENDER_URL and PLANT_STORE_ADMIN_TOKEN set):
  plant-store subscriptions add https://plants.example.com/plant/webhook
  plant-store subscriptions rotate sub_… --kind secret --grace 86400
  plant-store publish --id 42 --name Fern --idempotency-key order-42
  plant-store deliveries list --state failed
  plant-store recover sub_… --since 2026-11-22T00:00:00Z`;
  const subs = program
    .command("subscriptions")
    .description("Manage the sender's subscriptions")
    .addHelpText("after", adminExamples);
  admin(
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
  ).action(adminAction("subscriptions.add"));
  admin(
    subs.command("list").description("List every subscription"),
    "subscriptions list",
    "subscriptions list --json | jq -r '.data[].url'",
  ).action(adminAction("subscriptions.list"));
  admin(
    subs.command("show").description("Show one subscription").argument("<id>", "sub_…"),
    "subscriptions show sub_…",
  ).action(adminAction("subscriptions.show"));
  admin(
    subs
      .command("disable")
      .description("Stop delivering to a subscription")
      .argument("<id>", "sub_…")
      .option("--reason <text>", "why (shown with the subscription)"),
    "subscriptions disable sub_… --reason 'receiver down for maintenance'",
  ).action(adminAction("subscriptions.disable"));
  admin(
    subs.command("enable").description("Deliver to a subscription again").argument("<id>", "sub_…"),
    "subscriptions enable sub_…",
  ).action(adminAction("subscriptions.enable"));
  admin(
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
  ).action(adminAction("subscriptions.rotate"));
  admin(
    payload(
      program
        .command("publish")
        .description("Publish an event (default New Plant; --event for another) through the sender")
        .addHelpText("after", adminExamples),
    ),
  )
    .option("--idempotency-key <key>")
    .action(adminAction("publish"));
  const deliveries = program
    .command("deliveries")
    .description("Inspect and resend deliveries")
    .addHelpText("after", adminExamples);
  admin(
    deliveries
      .command("list")
      .description("List deliveries, newest first, one page at a time")
      // The states and the page sizes are checked with the admin API's schemas when the command runs, so
      // this file (loaded for every command, --help included) imports nothing heavy.
      .option("--state <state>", "only deliveries in this state: pending, leased, delivered, failed")
      .option("--subscription <id>", "only this subscription's")
      .option("--limit <n>", "page size, 1 to 1000 (the sender's default: 50)")
      .option("--cursor <cursor>", "the next page, as printed after the previous one"),
    "deliveries list --state failed",
    "deliveries list --subscription sub_… --limit 200",
    "deliveries list --cursor …   # the next page",
  ).action(adminAction("deliveries.list"));
  admin(
    deliveries
      .command("show")
      .description("Show a delivery and its attempts")
      .argument("<id>", "a delivery id"),
    "deliveries show 42",
  ).action(adminAction("deliveries.show"));
  admin(
    deliveries.command("resend").description("Queue a delivery again").argument("<id>", "a delivery id"),
    "deliveries resend 42",
  ).action(adminAction("deliveries.resend"));
  admin(
    program
      .command("recover")
      .description("Requeue a subscription's failed deliveries since a time")
      .addHelpText("after", adminExamples)
      .argument("<subscription>")
      .requiredOption("--since <date-time>"),
  ).action(adminAction("recover"));

  try {
    const twice = repeatedFlag(argv);
    if (twice) {
      throw new CliError(
        `${twice} is given more than once; give it once${twice === "--secret" ? " (only verify takes several secrets, for rotation)" : ""}.`,
        2,
      );
    }
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.exitCode === 0
      ) {
        return 0;
      }
      return 2;
    }
    if (error instanceof CliError) {
      process.stderr.write(`plant-store: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`plant-store: ${(error as Error).message}\n`);
    return 1;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return (
    JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}

/**
 * The first option given twice that takes one value. Commander keeps the last silently, so `--token a --token b`
 * would send with b and `sign --secret a --secret b` sign with b alone. Repeatable: `-H/--header`, and `--secret`
 * of `verify` (every secret of a rotation).
 */
function repeatedFlag(argv: string[]): string | undefined {
  const command = argv.find((arg) => !arg.startsWith("-"));
  const repeatable = new Set(["--header", "-H", ...(command === "verify" ? ["--secret"] : [])]);
  const seen = new Set<string>();
  for (const arg of argv) {
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const flag = arg.split("=", 1)[0] as string;
    if (repeatable.has(flag)) continue;
    if (seen.has(flag)) return flag;
    seen.add(flag);
  }
  return undefined;
}
