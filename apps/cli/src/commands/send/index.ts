import { DEFAULT_TIMEOUT_MS } from "@plant-store/core";
import type { Command } from "commander";
import { payloadOptions, withExamples } from "../../option-groups.js";

/**
 * Declares `plant-store send <url>`; its implementation loads when it runs.
 *
 * @example
 * ```ts
 * register(new Command("plant-store"));
 * ```
 */
export function register(program: Command): void {
  const send = program
    .command("send")
    .description("Send webhooks (default New Plant; --event for another) to a receiver")
    .argument("<url>", "the receiver's endpoint, e.g. http://127.0.0.1:4000/plant/webhook")
    .option("--token <token>", "bearer token (env PLANT_STORE_TOKEN)")
    .option("--secret <whsec>", "sign with this Standard Webhooks secret (env PLANT_STORE_WEBHOOK_SECRET)")
    .option("--count <n>", "send n webhooks with unique ids", "1")
    .option("--concurrency <n>", "requests in flight with --count", "10")
    .option("--timeout <ms>", "per request", String(DEFAULT_TIMEOUT_MS))
    .option("--json", "machine-readable output");
  withExamples(
    payloadOptions(send),
    "plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --secret whsec_…",
    "plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --name Fern --id 42 --json",
    "plant-store send http://127.0.0.1:4000/plant/webhook --token psk_… --count 1000 --concurrency 50",
    "plant-store send http://127.0.0.1:4000/plant/sold --token psk_… --spec openapi.yaml --event plantSold",
  ).action(async (url, options) => (await import("./send.js")).send(url, options));
}
