import type { WebhookHandler } from "@plant-store/core";
import { paint } from "../../output.js";

/** What the listener says once it listens; only generated credentials are shown (the user has the ones passed). */
export interface Intro {
  host: string;
  port: number;
  handler: WebhookHandler;
  /** Set when generated here. */
  token?: string | undefined;
  secret?: string | undefined;
  forwardTo: URL | null;
  json: boolean;
}

/**
 * Prints, on stderr, where the listener is (a URL per webhook), the generated credentials and the forward target:
 * one JSON line with `--json`.
 *
 * @example
 * ```ts
 * printIntro({ host: "127.0.0.1", port: 4100, handler, token, secret, forwardTo: null, json: false });
 * ```
 */
export function printIntro(intro: Intro): void {
  const { handler, token, secret, forwardTo } = intro;
  // An IPv6 address goes in brackets, so the printed URL can be pasted into `plant-store send`.
  const host = intro.host.includes(":") ? `[${intro.host}]` : intro.host;
  const base = `http://${host}:${intro.port}`;
  const url = `${base}${handler.events[0]?.path ?? "/"}`;
  if (intro.json) {
    const line = {
      listening: url,
      events: handler.events.map((entry) => ({ type: entry.type, url: `${base}${entry.path}` })),
      ...(token && { token }),
      ...(secret && { secret }),
      forwardTo: forwardTo?.href ?? null,
    };
    process.stderr.write(`${JSON.stringify(line)}\n`);
    return;
  }
  process.stderr.write(`${paint("bold", "Listening", process.stderr)} on ${url}\n`);
  for (const entry of handler.events.slice(1)) {
    process.stderr.write(`  and ${base}${entry.path} (${entry.type})\n`);
  }
  if (token) process.stderr.write(`  token:  ${token}   (send it as Authorization: Bearer …)\n`);
  if (secret) process.stderr.write(`  secret: ${secret}   (sign with it)\n`);
  if (forwardTo) process.stderr.write(`  forwarding to ${forwardTo.href}\n`);
  process.stderr.write("Ctrl-C to stop.\n");
}
