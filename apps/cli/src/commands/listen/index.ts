import { type Command, Option } from "commander";
import { eventOptions, withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store listen`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  withExamples(
    eventOptions(program.command("listen"))
      .description(
        "Run a local receiver that prints every verified, valid event (and optionally forwards it)",
      )
      .option("--port <n>", "listen port", "4100")
      .option("--host <addr>", "listen address", "127.0.0.1")
      .option("--token <token>", "accepted bearer token (generated and printed when omitted)")
      .option("--secret <whsec>", "required signing secret (generated and printed when omitted)")
      .option("--db <target>", "keep events in SQLite or PostgreSQL (default: in memory)")
      .option("--forward-to <url>", "relay each event's exact bytes and headers to this URL")
      .option("--retries <n>", "retries of a failed forward, with backoff from 1 s", "5")
      // Every int64 id is accepted now; --lossless, which once turned that on, is still accepted.
      .addOption(new Option("--lossless").hideHelp())
      .option("--json", "one JSON line per event (NDJSON)"),
    "plant-store listen",
    "plant-store listen --token psk_… --secret whsec_… --forward-to http://127.0.0.1:3000/plant/webhook",
    "plant-store listen --json | jq .payload.name",
    "plant-store listen --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook",
  ).action(async (options) => (await import("./listen.js")).listen(options));
}
