import { type Command, Option } from "commander";
import { withExamples } from "../../option-groups.js";
import { repeatable } from "../../repeatable.js";

const spec = () =>
  new Option("--spec <file>", "an OpenAPI document whose webhooks to check (default: built in)").env(
    "PLANT_STORE_SPEC",
  );

/**
 * Declares `plant-store conformance receiver|sender`; the suite loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const conformance = program
    .command("conformance")
    .description(
      "Check anyone's receiver, or judge anyone's sender, against the contract and Standard Webhooks",
    );
  const receiver = conformance
    .command("receiver")
    .description("Run the receiver checks against a running receiver; exit 1 when a MUST check fails")
    .argument("<url>", "the receiver's endpoint, e.g. http://127.0.0.1:4000/plant/webhook")
    .addOption(
      new Option("--token <token>", "the bearer token the receiver expects").env("PLANT_STORE_TOKEN"),
    )
    .addOption(repeatable("--secret <whsec>", "a secret the receiver verifies v1 with"))
    .addOption(
      repeatable("--private-key <whsk>", "a private key whose public key the receiver holds (v1a checks)"),
    )
    .addOption(repeatable("--public-key <whpk>", "a public key the receiver holds"))
    .addOption(
      repeatable("--only <ids>", "run only these check ids or prefixes ending in '.' (comma-separated)"),
    )
    .addOption(repeatable("--skip <ids>", "leave these check ids or prefixes out (comma-separated)"))
    .addOption(repeatable("--include <group>", "opt-in checks: load (a burst of concurrent deliveries)"))
    .option("--timeout <ms>", "the sender's attempt timeout answers must beat (default 15000)")
    .option("--burst <n>", "concurrent deliveries of the load check (default 50)")
    .option("--oversized-bytes <n>", "size of the oversized body (default 10 MiB + 1)")
    .addOption(spec())
    .option("--json", "the report as JSON on stdout")
    .option("--junit <file>", "also write the report as JUnit XML");
  withExamples(
    receiver,
    "plant-store conformance receiver http://127.0.0.1:4000/plant/webhook --token psk_… --secret whsec_…",
    "plant-store conformance receiver https://hooks.example.com/plant --token psk_… --secret whsec_… --junit report.xml",
    "plant-store conformance receiver … --only signature. --include load",
  ).action(async (url, options) => {
    process.exitCode = await (await import("./conformance.js")).conformanceReceiver(url, options);
  });
  const sender = conformance
    .command("sender")
    .description("Listen for a sender's deliveries and judge them; exit 1 when a MUST check fails")
    .option("--port <n>", "port to listen on (default 4000)")
    .option("--host <addr>", "address to listen on (default 127.0.0.1)")
    .addOption(
      new Option("--token <token>", "the bearer token the sender should present").env("PLANT_STORE_TOKEN"),
    )
    .addOption(repeatable("--secret <whsec>", "the endpoint's secret, to verify v1 signatures"))
    .addOption(repeatable("--public-key <whpk>", "the sender's public key, to verify v1a signatures"))
    .option("--events <n>", "how many events to wait for (default 3)")
    .option("--wait <s>", "report after this many seconds at most (default 600)")
    .option("--retry-after <s>", "the Retry-After of the judge's planned 503 (default 2)")
    .addOption(spec())
    .option("--json", "the report as JSON on stdout")
    .option("--junit <file>", "also write the report as JUnit XML");
  withExamples(
    sender,
    "plant-store conformance sender --port 4000 --secret whsec_… --token psk_… --events 3",
  ).action(async (options) => {
    process.exitCode = await (await import("./conformance.js")).conformanceSender(options);
  });
}
