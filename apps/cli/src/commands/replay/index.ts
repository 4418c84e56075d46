import type { Command } from "commander";
import { withExamples } from "../../option-groups.js";
import { repeatable } from "../../repeatable.js";

/**
 * Declares `plant-store replay`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  withExamples(
    program
      .command("replay")
      .description(
        "Forward events that `listen --db` kept, again (by id, since a time, or those that failed)",
      )
      .requiredOption("--db <target>", "the store listen kept them in (SQLite path or postgres://…)")
      .requiredOption("--forward-to <url>", "where to send them")
      .addOption(repeatable("--id <webhook-id>", "an event to replay"))
      .option("--since <time>", "every event received since this RFC 3339 time")
      .option("--failed", "every event never forwarded successfully")
      .option("--token <token>", "bearer token for the downstream (env PLANT_STORE_TOKEN)")
      .option("--secret <whsec>", "sign each event anew (same webhook-id, fresh timestamp)")
      .option("--retries <n>", "retries of a failed forward, with backoff from 1 s", "0")
      .option("--json", "one JSON line per event"),
    "plant-store replay --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook --failed --secret whsec_…",
    "plant-store replay --db ./listen.db --forward-to http://127.0.0.1:3000/plant/webhook --id msg_2zQz…",
  ).action(async (options) => (await import("./replay.js")).replay(options));
}
