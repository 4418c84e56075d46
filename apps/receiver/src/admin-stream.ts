import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setImmediate as turn } from "node:timers/promises";
import { errorResponse } from "@plant-store/core";
import { send } from "@plant-store/core/node";
import type { Store } from "@plant-store/store";
import { EVENTS_PER_TURN, eventJson, headerString, queryOf } from "./admin-json.js";

const HEARTBEAT_MS = 15_000;
const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/**
 * `GET /events/stream`: server-sent events from `Last-Event-ID` (or `?after=`) on, live until the client leaves or
 * the receiver closes (its controller is in `streams` meanwhile). A client that does not read makes the stream wait.
 *
 * @example
 * ```ts
 * await streamEvents(store, streams, req, res);
 * ```
 */
export async function streamEvents(
  store: Store,
  streams: Set<AbortController>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const query = queryOf(req);
  if (typeof query === "string") return send(res, errorResponse(400, query));
  const from = headerString(req.headers["last-event-id"]) ?? query.get("after");
  if (from !== null && !/^\d{1,15}$/.test(from)) {
    return send(
      res,
      errorResponse(400, "Last-Event-ID (or ?after=) must be the seq of an event, a whole number."),
    );
  }
  if (req.method === "HEAD") {
    res.writeHead(200, STREAM_HEADERS);
    res.end();
    return;
  }
  await streamFrom(store, streams, from, res);
}

async function streamFrom(
  store: Store,
  streams: Set<AbortController>,
  from: string | null,
  res: ServerResponse,
): Promise<void> {
  const controller = new AbortController();
  const { signal } = controller;
  const stop = () => controller.abort();
  // The response closes when the client leaves (the request's "close" has fired long before).
  res.once("close", stop);
  if (res.destroyed) stop();
  streams.add(controller);
  // Backpressure: a client that does not read makes the stream wait instead of buffering the backlog.
  const write = async (chunk: string) => {
    if (!res.write(chunk) && !signal.aborted) await once(res, "drain", { signal });
  };
  res.writeHead(200, STREAM_HEADERS);
  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(": ping\n\n");
  }, HEARTBEAT_MS);
  try {
    await write(": plant-store receiver event stream\nretry: 2000\n\n");
    let sent = 0;
    for await (const event of store.inbox.stream({
      ...(from !== null && { after: Number(from) }),
      signal,
    })) {
      await write(`id: ${event.seq}\nevent: new-plant\ndata: ${eventJson(event)}\n\n`);
      if (++sent % EVENTS_PER_TURN === 0) await turn();
    }
  } catch (error) {
    if (!signal.aborted) res.write(`event: error\ndata: ${JSON.stringify((error as Error).message)}\n\n`);
  } finally {
    clearInterval(heartbeat);
    res.off("close", stop);
    streams.delete(controller);
    res.end();
  }
}
