import type { ReceivedEvent } from "@plant-store/core";
import type { Forwarded } from "../../forward.js";
import { paint } from "../../output.js";

const decoder = new TextDecoder();

export function isOk(result: Forwarded): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}

export function reportRetry(
  webhookId: string,
  result: Forwarded,
  waitMs: number,
  retries: number,
  json: boolean,
): void {
  const why = result.status === null ? result.error : `answered ${result.status}`;
  if (json) {
    process.stderr.write(
      `${JSON.stringify({ webhookId, retry: { attempt: result.attempts, of: retries + 1, waitMs, why } })}\n`,
    );
    return;
  }
  process.stderr.write(
    `${paint("yellow", "↻", process.stderr)} ${webhookId}: forward ${why}; retrying in ${waitMs / 1000} s (attempt ${result.attempts + 1} of ${retries + 1})\n`,
  );
}

export function report(
  event: ReceivedEvent,
  duplicate: boolean,
  forwarded: Forwarded | null,
  json: boolean,
  db: string | undefined,
): void {
  const text = decoder.decode(event.body);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ type: event.type, webhookId: event.id, timestamp: event.timestamp, duplicate, forwarded }).slice(0, -1)},"payload":${text.replace(/\r?\n/g, " ")}}\n`,
    );
    return;
  }
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const line = `${paint("green", "✔")} ${paint("bold", event.type)} ${event.id} ${shown.replace(/\s*\n\s*/g, " ")}${duplicate ? paint("dim", " duplicate") : ""}`;
  let fwd = "";
  if (forwarded) {
    const failed = !isOk(forwarded);
    fwd =
      forwarded.status === null
        ? paint("red", `  → forward failed: ${forwarded.error}`)
        : `  → ${paint(failed ? "red" : "green", String(forwarded.status))}${forwarded.error ? paint("red", ` (${forwarded.error})`) : ""}`;
    if (failed && forwarded.error !== "stopped") {
      fwd += paint(
        "red",
        ` — gave up after ${forwarded.attempts} attempt${forwarded.attempts === 1 ? "" : "s"}; kept${db ? `: plant-store replay --db ${db} --id ${event.id} --forward-to <url>` : " in memory until listen stops (use --db to replay later)"}`,
      );
    }
  }
  process.stdout.write(`${line}${fwd}\n`);
}
