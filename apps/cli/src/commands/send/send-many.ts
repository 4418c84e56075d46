import { DEFAULT_EVENT_TYPE, type WebhookEntry } from "@plant-store/spec";
import { printJson } from "../../output.js";
import { countedPayloads } from "./counted-payloads.js";
import type { Result } from "./send-one.js";

/** How `--count` runs: how many, how many at once, and one webhook's send. */
export interface Batch {
  count: number;
  concurrency: number;
  json: boolean;
  sendOne: (body: Uint8Array) => Promise<Result>;
}

/**
 * `send --count`: the same payload with id = base + i, so every webhook is a distinct plant and a distinct
 * webhook-id (another event's payload is sent as it is, each with its own webhook-id), `concurrency` in flight, with
 * a progress bar on a terminal; then the summary. Exit 1 unless every answer was 2xx.
 *
 * @example
 * ```ts
 * await sendMany(entry, body, { count: 1000, concurrency: 50, json: false, sendOne: (text) => sendOne(…) });
 * ```
 */
export async function sendMany(entry: WebhookEntry, body: Buffer, batch: Batch): Promise<void> {
  const { count } = batch;
  const { first, render } =
    entry.type === DEFAULT_EVENT_TYPE ? countedPayloads(body, count) : { first: 0n, render: () => body };
  const results: Result[] = [];
  let next = 0;
  const started = performance.now();
  const progress = process.stderr.isTTY && !batch.json;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const text = render(first + BigInt(i));
      results.push(await batch.sendOne(typeof text === "string" ? Buffer.from(text) : text));
      if (progress && results.length % 25 === 0) showProgress(results.length, count);
    }
  };
  await Promise.all(Array.from({ length: Math.min(batch.concurrency, count) }, worker));
  if (progress) process.stderr.write("\r\x1b[K");
  const summary = summarize(results, count, (performance.now() - started) / 1000);
  if (batch.json) printJson(summary);
  else {
    process.stdout.write(
      `${summary.ok}/${count} ok in ${summary.seconds} s — ${summary.rate} req/s, p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms\n`,
    );
    for (const [status, n] of Object.entries(summary.statuses)) process.stdout.write(`  ${status}: ${n}\n`);
  }
  if (summary.ok !== count) process.exitCode = 1;
}

function showProgress(done: number, count: number): void {
  const width = 30;
  const filled = Math.round((done / count) * width);
  process.stderr.write(`\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${count}`);
}

function summarize(results: Result[], count: number, seconds: number) {
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === null ? `error:${r.error}` : String(r.status);
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  return {
    sent: count,
    ok: results.filter((r) => r.status !== null && r.status >= 200 && r.status < 300).length,
    seconds: round(seconds),
    rate: round(count / seconds),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    statuses,
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}
