import type { IncomingMessage, ServerResponse } from "node:http";
import type { InboxEvent } from "@plant-store/store";

/** A replay yields to the event loop this often (SQLite reads synchronously), so other requests stay served. */
export const EVENTS_PER_TURN = 200;
const decoder = new TextDecoder();

/**
 * One stored event as JSON. The payload is embedded as the exact JSON text that was received and validated,
 * so int64 ids beyond 2^53 arrive intact (re-serializing through `JSON.parse` would round them).
 */
export function eventJson(event: InboxEvent): string {
  // Raw newlines can only be whitespace between JSON tokens (inside strings they are escaped), so folding them
  // keeps the payload identical as JSON and makes it one line, as an SSE `data:` field needs.
  const payload = decoder
    .decode(event.body)
    .replace(/^\uFEFF/, "")
    .replace(/\r\n|\r|\n/g, " ");
  const meta = JSON.stringify({
    seq: event.seq,
    type: event.eventType,
    webhookId: event.webhookId,
    receivedAt: event.receivedAt.toISOString(),
    processedAt: event.processedAt?.toISOString() ?? null,
    headers: event.headers,
  });
  return `${meta.slice(0, -1)},"payload":${payload}}`;
}

/** Aborts when the response closes (the client left), so a wait for `drain` never outlives it. */
export function closedSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  return controller.signal;
}

export function headerString(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** The query of a request, or why it is refused: a parameter given twice (`?limit=1&limit=5000`) has no one meaning. */
export function queryOf(req: IncomingMessage): URLSearchParams | string {
  const query = new URL(req.url ?? "/", "http://receiver").searchParams;
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name))
      return `Query parameter '${name.slice(0, 50)}' is given more than once; give it once.`;
    seen.add(name);
  }
  return query;
}
