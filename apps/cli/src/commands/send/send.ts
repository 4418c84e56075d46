import { WEBHOOK_HEADERS } from "@plant-store/spec";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import {
  bearerToken,
  firstOf,
  httpUrl,
  MAX_TIMEOUT_MS,
  notEmpty,
  paint,
  printJson,
  whole,
} from "../../output.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";
import { sendMany } from "./send-many.js";
import { type Result, sendOne } from "./send-one.js";

interface SendOptions extends PayloadOptions, EventOptions {
  token?: string;
  secret?: string;
  count: string;
  concurrency: string;
  timeout: string;
  json?: boolean;
}

const MAX_CONCURRENCY = 1000;

/**
 * `plant-store send <url>`: one webhook (status, latency, response), or `--count N` of them with unique ids and a
 * summary; `--event` picks the webhook (default New Plant), named in `webhook-event-type`. Exit 1 when any answer is
 * not 2xx.
 *
 * @example
 * ```ts
 * await send("http://127.0.0.1:4000/plant/webhook", { token: "psk_…", count: "1", concurrency: "1", timeout: "15000" });
 * ```
 */
export async function send(url: string, options: SendOptions): Promise<void> {
  // An empty flag is a mistake (exit 2); an empty environment variable counts as unset.
  // PLANT_STORE_TOKENS is the receiver's older name (a list): a shell set up for it sends with its first token.
  const token =
    notEmpty("--token", options.token) ??
    (process.env.PLANT_STORE_TOKEN || firstOf(process.env.PLANT_STORE_TOKENS));
  const secret =
    notEmpty("--secret", options.secret) ?? (process.env.PLANT_STORE_WEBHOOK_SECRET || undefined);
  if (!token)
    throw new CliError("--token (or PLANT_STORE_TOKEN) is required: the receiver's bearer token.", 2);
  httpUrl("<url>", url);
  bearerToken("--token (or PLANT_STORE_TOKEN)", token);
  const count = whole("--count", options.count, Number.MAX_SAFE_INTEGER);
  const concurrency = whole("--concurrency", options.concurrency, MAX_CONCURRENCY);
  const timeoutMs = whole("--timeout", options.timeout, MAX_TIMEOUT_MS, " ms (10 minutes)");
  const { entry } = await commandEvent(options);
  const body = await payloadBytes(options, false, entry);
  const target = { url, token, secrets: secret ? [secret] : [] };
  const one = (text: Uint8Array) => sendOne(target, entry.type, text, timeoutMs);
  if (count > 1) {
    await sendMany(entry, body, { count, concurrency, json: options.json === true, sendOne: one });
    return;
  }
  const result = await one(body);
  if (options.json) printJson(result);
  else printResult(result, url);
  if (result.status === null || result.status < 200 || result.status > 299) process.exitCode = 1;
}

/** One webhook's outcome for people: the status and latency, the answer, and what went wrong. */
function printResult(result: Result, url: string): void {
  if (result.status === null) {
    process.stderr.write(`${paint("red", "failed", process.stderr)}: ${result.error} (${url})\n`);
    return;
  }
  const ok = result.status >= 200 && result.status < 300;
  process.stdout.write(
    `${paint(ok ? "green" : "red", String(result.status))} in ${result.latencyMs} ms  ${WEBHOOK_HEADERS.id} ${result.webhookId}\n`,
  );
  if (result.body) process.stdout.write(`${result.body}\n`);
  if (result.error) process.stderr.write(`${paint("red", result.error, process.stderr)} (${url})\n`);
}
