import type { Command } from "commander";
import { ADMIN_EXAMPLES, adminOptions } from "../../admin/admin-options.js";
import { payloadOptions } from "../../option-groups.js";

/**
 * Declares `plant-store publish`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  adminOptions(
    payloadOptions(
      program
        .command("publish")
        .description("Publish an event (default New Plant; --event for another) through the sender")
        .addHelpText("after", ADMIN_EXAMPLES),
    ),
  )
    .option("--idempotency-key <key>", "the same key returns the same message instead of publishing twice")
    .option(
      "--ndjson",
      "--file holds one event per line (implied by a .ndjson or .jsonl name); sent in batches",
    )
    .addHelpText(
      "after",
      `
An NDJSON file holds one event per line: the event itself (of --event's type), or
  {"payload": <event>, "type": "<event type>", "idempotencyKey": "<key>"}   (type and key optional)
Every line is checked before anything is sent; batches are stored all or nothing.
  plant-store publish --file plants.ndjson
  cat plants.ndjson | plant-store publish --file - --ndjson --json`,
    )
    .action(async (options) => (await import("./publish.js")).publish(options));
}
