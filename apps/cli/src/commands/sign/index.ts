import type { Command } from "commander";
import { BODY_REQUIRED, payloadOptions, withExamples } from "../../option-groups.js";
import { repeatable } from "../../repeatable.js";

/**
 * Declares `plant-store sign`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const sign = program
    .command("sign")
    .description("Print the Standard Webhooks headers for a body")
    .addOption(repeatable("--secret <whsec>", "signing secret, v1"))
    .addOption(repeatable("--private-key <whsk>", "ed25519 private key, v1a"))
    .option("--msg-id <id>", "webhook-id (default: a new msg_ id)")
    .option("--timestamp <unix>", "webhook-timestamp (default: now)")
    .option("--example", "sign the spec's example payload")
    .option("--json", "machine-readable output");
  withExamples(
    payloadOptions(sign).addHelpText("after", BODY_REQUIRED),
    `plant-store sign --secret whsec_… --data '{"id":1,"name":"Fern"}'`,
    "plant-store sign --secret whsec_… --file body.json --json",
    `plant-store sign --private-key whsk_… --data '{"id":1,"name":"Fern"}'`,
  ).action(async (options) => (await import("./sign.js")).signCommand(options));
}
