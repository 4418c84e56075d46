import type { Command } from "commander";
import { BODY_REQUIRED, payloadOptions, withExamples } from "../../option-groups.js";
import { repeatable } from "../../repeatable.js";

/**
 * Declares `plant-store verify`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const verify = program
    .command("verify")
    .description("Verify a signed webhook, and say why it fails")
    .addOption(repeatable("--secret <whsec>", "signing secret, v1", "repeat for rotation"))
    .addOption(repeatable("--public-key <whpk>", "ed25519 public key, v1a", "repeat for rotation"))
    .addOption(repeatable("-H, --header <header>", "a received header, 'name: value'"))
    .option("--msg-id <id>", "webhook-id")
    .option("--timestamp <unix>", "webhook-timestamp")
    .option("--signature <sig>", "webhook-signature")
    .option("--tolerance <s>", "allowed clock skew in seconds", "300")
    .option("--example", "verify the spec's example payload")
    .option("--json", "machine-readable output");
  withExamples(
    payloadOptions(verify).addHelpText("after", BODY_REQUIRED),
    "plant-store verify --secret whsec_… -H 'webhook-id: msg_1' -H 'webhook-timestamp: 1732…' -H 'webhook-signature: v1,…' --file body.json",
  ).action(async (options) => (await import("./verify.js")).verifyCommand(options));
}
