import type { Command } from "commander";
import { withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store keypair create`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const keypair = withExamples(
    program.command("keypair").description("ed25519 key pairs for v1a signatures (whsk_… / whpk_…)"),
    "plant-store keypair create",
  );
  withExamples(
    keypair
      .command("create")
      .description(
        "Create a Standard Webhooks ed25519 key pair: the sender signs with whsk_, receivers verify with whpk_",
      )
      .option("--json", "machine-readable output"),
    "plant-store keypair create",
    "plant-store keypair create --json | jq -r .publicKey",
  ).action(async (options) => (await import("./keypair.js")).keypairCreate(options));
}
