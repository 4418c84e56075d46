import type { Command } from "commander";
import { withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store token create|hash|check`; their implementation loads when one runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const token = withExamples(
    program.command("token").description("Bearer tokens (psk_…)"),
    "plant-store token create",
    "plant-store token hash psk_…   # for the receiver's PLANT_STORE_TOKEN",
    "plant-store token check psk_…",
  );
  withExamples(
    token
      .command("create")
      .description("Create a token (and its sha256: hash for the receiver's configuration)")
      .option("--json", "machine-readable output"),
    "plant-store token create",
    "plant-store token create --json | jq -r .hash",
  ).action(async (options) => (await import("./token.js")).tokenCreate(options));
  withExamples(
    token
      .command("hash")
      .description("Print the sha256: hash of a token, for the receiver's PLANT_STORE_TOKEN")
      .argument("<token>", "a psk_ token")
      .option("--json", "machine-readable output"),
    "plant-store token hash psk_…",
  ).action(async (value, options) => (await import("./token.js")).tokenHash(value, options));
  withExamples(
    token
      .command("check")
      .description("Check a token's format and checksum (exit 1 if damaged)")
      .argument("<token>", "a psk_ token")
      .option("--json", "machine-readable output"),
    "plant-store token check psk_… && echo intact",
  ).action(async (value, options) => (await import("./token.js")).tokenCheck(value, options));
}
