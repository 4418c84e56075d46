import { createServer, type Server } from "node:http";
import { createSecret, createToken, createWebhookHandler, type WebhookHandler } from "@plant-store/core";
import { handleNodeRequest } from "@plant-store/core/node";
import { openStore } from "@plant-store/store";
import { CliError } from "../../cli-error.js";
import { commandCatalog, type EventOptions } from "../../events.js";
import { httpUrl, notEmpty, whole } from "../../output.js";
import { eventQueue } from "./event-queue.js";
import { printIntro } from "./intro.js";

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
  const stopping = new AbortController();
  const json = options.json === true;
  const queue = eventQueue(store, {
    forwardTo,
    token,
    retries,
    json,
    db: options.db,
    signal: stopping.signal,
  });
  let handler: WebhookHandler;
  try {
    // Every int64 id is accepted, as by plant-store-receiver: printed and forwarded exactly as sent.
    handler = createWebhookHandler({ tokens: [token], secrets: [secret], catalog, onEvent: queue.onEvent });
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
  printIntro({
    host: options.host,
    port,
    handler,
    token: options.token ? undefined : token,
    secret: options.secret ? undefined : secret,
    forwardTo,
    json,
  });
  await untilStopped(server, stopping);
  await queue.settled();
  await store.close();
}

/** Waits for Ctrl-C (or SIGTERM): stops forwarding what is still queued and closes the server. */
function untilStopped(server: Server, stopping: AbortController): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      stopping.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
