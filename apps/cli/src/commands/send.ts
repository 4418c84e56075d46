import { createMessageId, parseNewPlant, serializeNewPlant, sign } from "@plant-store/core";
import { DEFAULT_EVENT_TYPE, EVENT_TYPE_HEADER } from "@plant-store/spec";
import { commandEvent, type EventOptions } from "../events.js";
import {
  bearerToken,
  CliError,
  fetchFailure,
  firstOf,
  httpUrl,
  MAX_TIMEOUT_MS,
  notEmpty,
  paint,
  printJson,
  redirectNote,
  whole,
} from "../output.js";
import { type PayloadOptions, payloadBytes } from "../payload.js";

interface SendOptions extends PayloadOptions, EventOptions {
  token?: string;
  secret?: string;
  count: string;
  concurrency: string;
  timeout: string;
  json?: boolean;
}

interface Result {
  status: number | null;
  latencyMs: number;
  webhookId: string;
  body: string;
  error?: string;
}

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

  const one = async (text: Uint8Array): Promise<Result> => {
    const webhookId = createMessageId();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "user-agent": "plant-store-cli",
      [EVENT_TYPE_HEADER]: entry.type,
      "webhook-id": webhookId,
      "webhook-timestamp": String(timestamp),
    };
    if (secret) {
      try {
        headers["webhook-signature"] = await sign({ secret, id: webhookId, timestamp, body: text });
      } catch (error) {
        throw new CliError(`Cannot sign: ${(error as Error).message}`, 2);
      }
    }
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method: "POST",
        headers,
        body: text,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const responseBody = await res.text();
      const redirect = redirectNote(res.status, res.headers.get("location"));
      return {
        status: res.status,
        latencyMs: round(performance.now() - started),
        webhookId,
        body: responseBody,
        ...(redirect && { error: redirect }),
      };
    } catch (error) {
      return {
        status: null,
        latencyMs: round(performance.now() - started),
        webhookId,
        body: "",
        error: fetchFailure(error, timeoutMs, "--timeout"),
      };
    }
  };

  if (count === 1) {
    const result = await one(body);
    if (options.json) printJson(result);
    else if (result.status === null)
      process.stderr.write(`${paint("red", "failed", process.stderr)}: ${result.error} (${url})\n`);
    else {
      const ok = result.status >= 200 && result.status < 300;
      process.stdout.write(
        `${paint(ok ? "green" : "red", String(result.status))} in ${result.latencyMs} ms  webhook-id ${result.webhookId}\n`,
      );
      if (result.body) process.stdout.write(`${result.body}\n`);
      if (result.error) process.stderr.write(`${paint("red", result.error, process.stderr)} (${url})\n`);
    }
    if (result.status === null || result.status < 200 || result.status > 299) process.exitCode = 1;
    return;
  }

  // --count: the same payload with id = base + i, so every webhook is a distinct plant and a distinct webhook-id.
  // New Plant ids are counted up; another event's payload is sent as it is, each with its own webhook-id.
  const { first: firstId, render } =
    entry.type === DEFAULT_EVENT_TYPE ? countedPayloads(body, count) : { first: 0n, render: () => body };
  const results: Result[] = [];
  let next = 0;
  const started = performance.now();
  const progress = process.stderr.isTTY && !options.json;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const text = render(firstId + BigInt(i));
      results.push(await one(typeof text === "string" ? Buffer.from(text) : text));
      if (progress && results.length % 25 === 0) {
        const width = 30;
        const filled = Math.round((results.length / count) * width);
        process.stderr.write(
          `\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${results.length}/${count}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (progress) process.stderr.write("\r\x1b[K");
  const seconds = (performance.now() - started) / 1000;
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === null ? `error:${r.error}` : String(r.status);
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  const summary = {
    sent: count,
    ok: results.filter((r) => r.status !== null && r.status >= 200 && r.status < 300).length,
    seconds: round(seconds),
    rate: round(count / seconds),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    statuses,
  };
  if (options.json) printJson(summary);
  else {
    process.stdout.write(
      `${summary.ok}/${count} ok in ${summary.seconds} s — ${summary.rate} req/s, p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms\n`,
    );
    for (const [status, n] of Object.entries(statuses)) process.stdout.write(`  ${status}: ${n}\n`);
  }
  if (summary.ok !== count) process.exitCode = 1;
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * The payloads of `--count`: the given object with its `id` replaced per request, counted up exactly as int64 (a
 * JavaScript number would round ids beyond 2^53 into duplicates). A valid New Plant keeps every other field exactly;
 * any other JSON object (to test a receiver's 422, say) is re-serialized with `JSON.stringify`.
 */
function countedPayloads(body: Buffer, count: number): { first: bigint; render: (id: bigint) => string } {
  const plant = parseNewPlant(body, { mode: "lossless" });
  let first: bigint;
  let render: (id: bigint) => string;
  if (plant.ok) {
    first = plant.value.id;
    render = (id) => serializeNewPlant({ ...plant.value, id });
  } else {
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8").replace(/^\uFEFF/, ""));
    } catch {
      value = undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new CliError("--count needs a JSON object payload (its id is replaced per request).", 2);
    }
    const { id: given, ...rest } = value as Record<string, unknown>;
    first = Number.isSafeInteger(given) ? BigInt(given as number) : 1n;
    const tail = JSON.stringify(rest).slice(1); // the other members and the closing brace
    render = (id) => `{"id":${id}${tail === "}" ? "" : ","}${tail}`;
  }
  if (first + BigInt(count - 1) > INT64_MAX) {
    throw new CliError(
      `--count ${count} from id ${first} goes beyond the int64 range; start from a lower --id.`,
      2,
    );
  }
  return { first, render };
}

const MAX_CONCURRENCY = 1000;

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}
