import { createServer } from "node:http";
import { createSecret, createToken, createWebhookHandler, type ReceivedEvent } from "@plant-store/core";
import { handleNodeRequest, readBody, send } from "@plant-store/core/node";
import { openStore } from "@plant-store/store";
import { CliError, fetchFailure, httpUrl, notEmpty, paint, redirectNote } from "../output.js";

interface ListenOptions {
  port: string;
  host: string;
  token?: string;
  secret?: string;
  db?: string;
  forwardTo?: string;
  json?: boolean;
}

const FORWARDED = [
  "authorization",
  "content-type",
  "user-agent",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
];
const decoder = new TextDecoder();
const FORWARD_TIMEOUT_MS = 15_000;

/**
 * `plant-store listen`: a local receiver (core's pipeline + an inbox in memory or `--db`) that prints every
 * verified, valid event. `--forward-to` relays the exact bytes and the original headers, so the downstream can
 * verify the same signature. The sender is answered 200 once the event is stored here (as Stripe's CLI does);
 * events are then forwarded one at a time, in the order received, and each is printed with the downstream's
 * status (or why forwarding failed).
 *
 * @example
 * ```ts
 * await listen({ port: "4100", host: "127.0.0.1" }); // prints a generated token and secret, then events
 * ```
 */
export async function listen(options: ListenOptions): Promise<void> {
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535)
    throw new CliError("--port must be 0–65535.", 2);
  const forwardTo = options.forwardTo ? httpUrl("--forward-to", options.forwardTo) : null;
  const token = notEmpty("--token", options.token) ?? createToken();
  const secret = notEmpty("--secret", options.secret) ?? createSecret();
  const store = await openStore(options.db ?? ":memory:");
  // Forwarding happens after the sender was answered, one event at a time so the downstream sees them in order;
  // each event is printed once its forward settled. Stopping aborts what is still queued.
  let queue = Promise.resolve();
  const stopping = new AbortController();
  const onEvent = async (event: ReceivedEvent) => {
    const recorded = await store.inbox.record({
      webhookId: event.id ?? "unknown",
      body: event.body,
      headers: event.headers,
    });
    const authorization = authorizations.get(event.body) ?? "";
    queue = queue.then(async () => {
      const forwarded =
        forwardTo && !recorded.duplicate
          ? await forward(forwardTo, event, authorization, stopping.signal)
          : null;
      report(event, recorded.duplicate, forwarded, options.json === true);
    });
    return { duplicate: recorded.duplicate };
  };
  let handler: ReturnType<typeof createWebhookHandler>;
  try {
    // Every int64 id is accepted, as by plant-store-receiver: printed and forwarded exactly as sent.
    handler = createWebhookHandler({ tokens: [token], secrets: [secret], mode: "lossless", onEvent });
  } catch (error) {
    await store.close();
    throw new CliError((error as Error).message, 2);
  }
  // The Authorization header is not part of ReceivedEvent (it is never stored); the relay needs it as received,
  // so it is remembered per request, keyed by the body the pipeline hands to onEvent.
  const authorizations = new WeakMap<Uint8Array, string>();
  const server = createServer(async (req, res) => {
    const body = await readBody(req, handler.maxBodyBytes);
    if (body === "aborted") return;
    if (body === "too-large") return send(res, handler.tooLarge());
    authorizations.set(body, req.headers.authorization ?? "");
    await handleNodeRequest(handler, req, res, body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new CliError(`Cannot listen: ${error.message}`)));
    server.listen(Number(options.port), options.host, resolve);
  });
  const { port } = server.address() as { port: number };
  // An IPv6 address goes in brackets, so the printed URL can be pasted into `plant-store send`.
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/plant/webhook`;
  // Only generated credentials are printed: the user already has the ones they passed.
  const intro = {
    listening: url,
    ...(!options.token && { token }),
    ...(!options.secret && { secret }),
    forwardTo: forwardTo?.href ?? null,
  };
  if (options.json) process.stderr.write(`${JSON.stringify(intro)}\n`);
  else {
    process.stderr.write(`${paint("bold", "Listening", process.stderr)} on ${url}\n`);
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

async function forward(
  target: URL,
  event: ReceivedEvent,
  authorization: string,
  stopping: AbortSignal,
): Promise<{ status: number | null; error?: string }> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = name === "authorization" ? authorization : event.headers[name];
    if (value) headers[name] = value;
  }
  try {
    const res = await fetch(target, {
      method: "POST",
      headers,
      body: event.body,
      redirect: "manual", // a 301/302 would be followed as a bodyless GET that "succeeds"
      signal: AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), stopping]),
    });
    await res.arrayBuffer();
    const redirect = redirectNote(res.status, res.headers.get("location"));
    return { status: res.status, ...(redirect && { error: redirect }) };
  } catch (error) {
    return { status: null, error: stopping.aborted ? "stopped" : fetchFailure(error, FORWARD_TIMEOUT_MS) };
  }
}

function report(
  event: ReceivedEvent,
  duplicate: boolean,
  forwarded: { status: number | null; error?: string } | null,
  json: boolean,
): void {
  const text = decoder.decode(event.body);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ webhookId: event.id, timestamp: event.timestamp, duplicate, forwarded }).slice(0, -1)},"payload":${text.replace(/\r?\n/g, " ")}}\n`,
    );
    return;
  }
  const payload = event.payload as { id: unknown; name: string; tag?: string };
  const line = `${paint("green", "✔")} ${event.id} ${paint("bold", payload.name)} (id ${String(payload.id)}${payload.tag ? `, tag ${payload.tag}` : ""})${duplicate ? paint("dim", " duplicate") : ""}`;
  const fwd = forwarded
    ? forwarded.status === null
      ? paint("red", `  → forward failed: ${forwarded.error}`)
      : `  → ${paint(forwarded.status < 300 ? "green" : "red", String(forwarded.status))}${forwarded.error ? paint("red", ` (${forwarded.error})`) : ""}`
    : "";
  process.stdout.write(`${line}${fwd}\n`);
}
