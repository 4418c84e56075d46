import { createServer } from "node:http";
import { createSecret, createToken, createWebhookHandler, type ReceivedEvent } from "@plant-store/core";
import { handleNodeRequest, readBody, send } from "@plant-store/core/node";
import { openStore } from "@plant-store/store";
import { CliError, paint } from "../output.js";

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

/**
 * `plant-store listen`: a local receiver (core's pipeline + an inbox in memory or `--db`) that prints every
 * verified, valid event. `--forward-to` relays the exact bytes and the original headers, so the downstream can
 * verify the same signature; the sender is answered 200 once the event is stored here (as Stripe's CLI does), and
 * the downstream's status is printed.
 *
 * @example
 * ```ts
 * await listen({ port: "4100", host: "127.0.0.1" }); // prints a generated token and secret, then events
 * ```
 */
export async function listen(options: ListenOptions): Promise<void> {
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535)
    throw new CliError("--port must be 0–65535.", 2);
  let forwardTo: URL | null = null;
  if (options.forwardTo) {
    try {
      forwardTo = new URL(options.forwardTo);
    } catch {
      throw new CliError(`--forward-to '${options.forwardTo}' is not a URL.`, 2);
    }
  }
  const token = options.token ?? createToken();
  const secret = options.secret ?? createSecret();
  const store = await openStore(options.db ?? ":memory:");
  let handler: ReturnType<typeof createWebhookHandler>;
  try {
    handler = createWebhookHandler({
      tokens: [token],
      secrets: [secret],
      onEvent: async (event) => {
        const recorded = await store.inbox.record({
          webhookId: event.id ?? "unknown",
          body: event.body,
          headers: event.headers,
        });
        const forwarded =
          forwardTo && !recorded.duplicate
            ? await forward(forwardTo, event, authorizations.get(event.body) ?? "")
            : null;
        report(event, recorded.duplicate, forwarded, options.json === true);
        return { duplicate: recorded.duplicate };
      },
    });
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
  const url = `http://${options.host}:${port}/plant/webhook`;
  const intro = { listening: url, token, secret, forwardTo: forwardTo?.href ?? null };
  if (options.json) process.stderr.write(`${JSON.stringify(intro)}\n`);
  else {
    process.stderr.write(`${paint("bold", "Listening")} on ${url}\n`);
    if (!options.token) process.stderr.write(`  token:  ${token}   (send it as Authorization: Bearer …)\n`);
    if (!options.secret) process.stderr.write(`  secret: ${secret}   (sign with it)\n`);
    if (forwardTo) process.stderr.write(`  forwarding to ${forwardTo.href}\n`);
    process.stderr.write("Ctrl-C to stop.\n");
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await store.close();
}

async function forward(
  target: URL,
  event: ReceivedEvent,
  authorization: string,
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
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    return { status: res.status };
  } catch (error) {
    return {
      status: null,
      error: (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message,
    };
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
      : `  → ${paint(forwarded.status < 300 ? "green" : "red", String(forwarded.status))}`
    : "";
  process.stdout.write(`${line}${fwd}\n`);
}
