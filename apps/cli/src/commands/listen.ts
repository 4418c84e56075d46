import { createServer } from "node:http";
import {
  createMessageId,
  createSecret,
  createToken,
  createWebhookHandler,
  type ReceivedEvent,
} from "@plant-store/core";
import { handleNodeRequest } from "@plant-store/core/node";
import { openStore } from "@plant-store/store";
import { commandCatalog, type EventOptions } from "../events.js";
import { CliError, httpUrl, notEmpty, paint, whole } from "../output.js";
import { type Forwarded, forwardEvent } from "./forward.js";

interface ListenOptions extends EventOptions {
  port: string;
  host: string;
  token?: string;
  secret?: string;
  db?: string;
  forwardTo?: string;
  retries: string;
  json?: boolean;
}

const decoder = new TextDecoder();

/**
 * `plant-store listen`: a local receiver (core's pipeline over every webhook of the contract, or of `--spec`, and
 * an inbox in memory or `--db`) that prints every verified, valid event. The sender is answered 200 once the event
 * is stored here (as Stripe's CLI does), so nothing is lost when forwarding fails: `--forward-to` relays the exact
 * bytes and headers (the downstream verifies the same signature) one event at a time, in the order received,
 * retrying a failure `--retries` times with backoff and saying so; an event forwarded for good is marked processed,
 * and `plant-store replay` sends any of them again.
 *
 * @example
 * ```ts
 * await listen({ port: "4100", host: "127.0.0.1", retries: "5" }); // prints a generated token and secret, then events
 * ```
 */
export async function listen(options: ListenOptions): Promise<void> {
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535)
    throw new CliError("--port must be 0–65535.", 2);
  const retries = whole("--retries", options.retries, 20, "", 0);
  const forwardTo = options.forwardTo ? httpUrl("--forward-to", options.forwardTo) : null;
  const token = notEmpty("--token", options.token) ?? createToken();
  const secret = notEmpty("--secret", options.secret) ?? createSecret();
  const catalog = await commandCatalog(options);
  const store = await openStore(options.db ?? ":memory:");
  // Forwarding happens after the sender was answered, one event at a time so the downstream sees them in order;
  // each event is printed once its forward settled. Stopping aborts what is still queued.
  let queue = Promise.resolve();
  const stopping = new AbortController();
  const json = options.json === true;
  const onEvent = async (event: ReceivedEvent) => {
    const webhookId = event.id ?? `rcv_${createMessageId().slice(4)}`;
    const recorded = await store.inbox.record({ webhookId, body: event.body, headers: event.headers });
    queue = queue.then(async () => {
      let forwarded: Forwarded | null = null;
      if (forwardTo && !recorded.duplicate) {
        // The request carried this listener's token (the pipeline checked it): the downstream gets the same.
        forwarded = await forwardEvent(forwardTo, event, {
          retries,
          signal: stopping.signal,
          authorization: `Bearer ${token}`,
          onRetry: (result, waitMs) => reportRetry(webhookId, result, waitMs, retries, json),
        });
        if (isOk(forwarded)) await store.inbox.markProcessed(webhookId);
      }
      report(event, recorded.duplicate, forwarded, json, options.db);
    });
    return { duplicate: recorded.duplicate };
  };
  let handler: ReturnType<typeof createWebhookHandler>;
  try {
    // Every int64 id is accepted, as by plant-store-receiver: printed and forwarded exactly as sent.
    handler = createWebhookHandler({ tokens: [token], secrets: [secret], catalog, onEvent });
  } catch (error) {
    await store.close();
    throw new CliError((error as Error).message, 2);
  }
  const server = createServer((req, res) => void handleNodeRequest(handler, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new CliError(`Cannot listen: ${error.message}`)));
    server.listen(Number(options.port), options.host, resolve);
  });
  const { port } = server.address() as { port: number };
  // An IPv6 address goes in brackets, so the printed URL can be pasted into `plant-store send`.
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const base = `http://${host}:${port}`;
  const url = `${base}${handler.events[0]?.path ?? "/"}`;
  // Only generated credentials are printed: the user already has the ones they passed.
  const intro = {
    listening: url,
    events: handler.events.map((entry) => ({ type: entry.type, url: `${base}${entry.path}` })),
    ...(!options.token && { token }),
    ...(!options.secret && { secret }),
    forwardTo: forwardTo?.href ?? null,
  };
  if (json) process.stderr.write(`${JSON.stringify(intro)}\n`);
  else {
    process.stderr.write(`${paint("bold", "Listening", process.stderr)} on ${url}\n`);
    for (const entry of handler.events.slice(1)) {
      process.stderr.write(`  and ${base}${entry.path} (${entry.type})\n`);
    }
    if (!options.token) process.stderr.write(`  token:  ${token}   (send it as Authorization: Bearer …)\n`);
    if (!options.secret) process.stderr.write(`  secret: ${secret}   (sign with it)\n`);
    if (forwardTo) process.stderr.write(`  forwarding to ${forwardTo.href}\n`);
    process.stderr.write("Ctrl-C to stop.\n");
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopping.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await queue;
  await store.close();
}

function isOk(result: Forwarded): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}

function reportRetry(
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

function report(
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
