import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setImmediate as turn } from "node:timers/promises";
import {
  createBearerCheck,
  createTokenVerifier,
  errorResponse,
  PAGE_SIZE,
  type WebhookResponse,
} from "@plant-store/core";
import { nodeHeaders, send } from "@plant-store/core/node";
import type { Catalog } from "@plant-store/spec";
import { type InboxEvent, type Store, StoreInputError } from "@plant-store/store";

/** The read endpoints for operators, the CLI and dashboards. */
export interface AdminApi {
  serves(path: string): boolean;
  handle(path: string, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every live stream (shutdown). */
  close(): void;
}

const REALM = "plant-store-admin";
const HEARTBEAT_MS = 15_000;
/** A replay yields to the event loop this often (SQLite reads synchronously), so other requests stay served. */
const EVENTS_PER_TURN = 200;
/** The payload bytes a `GET /events` page holds at most (it holds at least one event, whatever its size). */
export const PAGE_MAX_BYTES = 4 * 1024 * 1024;
const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};
const decoder = new TextDecoder();

/**
 * `GET /events` (newest first, cursor pages), `GET /events/stream` (server-sent events, resumable with
 * `Last-Event-ID`) and `GET /event-types` (the webhooks served, as catalog entries: the answer of the sender's
 * `GET /event-types`), behind admin bearer tokens. Without tokens they answer 404 saying they are off.
 *
 * @example
 * ```ts
 * const admin = createAdminApi({ store, adminTokens: ["sha256:…"] });
 * if (admin.serves(path)) await admin.handle(path, req, res);
 * ```
 */
export function createAdminApi(options: {
  store: Store;
  adminTokens: readonly string[];
  /** The webhooks served, listed by `GET /event-types`. Default none. */
  eventTypes?: Catalog;
  /** A `GET /events` page ends before the payload that would take it past this. Default 4 MiB. */
  pageMaxBytes?: number;
}): AdminApi {
  const { store } = options;
  const pageMaxBytes = options.pageMaxBytes ?? PAGE_MAX_BYTES;
  const enabled = options.adminTokens.length > 0;
  const eventTypes = JSON.stringify({ data: options.eventTypes ?? [] });
  const checkBearer = enabled
    ? createBearerCheck({
        verifier: createTokenVerifier(options.adminTokens),
        realm: REALM,
        missing: "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
        rejected: "The admin token is not accepted.",
      })
    : null;
  const streams = new Set<AbortController>();

  async function authorize(req: IncomingMessage): Promise<WebhookResponse | null> {
    if (!checkBearer) {
      return errorResponse(
        404,
        "The admin endpoints are off. Start the receiver with --admin-token to turn them on.",
      );
    }
    const auth = await checkBearer(nodeHeaders(req)("authorization"));
    return auth.ok ? null : errorResponse(auth.status, auth.message, auth.headers);
  }

  async function list(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const query = queryOf(req);
    if (typeof query === "string") return send(res, errorResponse(400, query));
    const rawLimit = query.get("limit");
    const limit = rawLimit === null ? undefined : /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : 0;
    if (limit !== undefined && (limit < 1 || limit > PAGE_SIZE.max)) {
      return send(res, errorResponse(400, `limit must be a whole number from 1 to ${PAGE_SIZE.max}.`));
    }
    try {
      // `type`: only events of that type (an operationId of the contract); the store refuses a malformed one (400).
      const type = query.get("type");
      const page = await store.inbox.list({
        ...(limit !== undefined && { limit }),
        ...(type !== null && { type }),
        cursor: query.get("cursor"),
        maxBytes: pageMaxBytes,
      });
      // Written event by event at the pace the client reads, never joined into one string: a page of large
      // payloads used to take the whole page twice over in memory (and past ~512 MB failed to build at all).
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      const signal = closedSignal(res);
      const write = async (chunk: string) => {
        if (!res.write(chunk) && !res.destroyed) await once(res, "drain", { signal });
      };
      await write('{"data":[');
      for (const [i, event] of page.items.entries()) {
        if (res.destroyed) return;
        await write(i === 0 ? eventJson(event) : `,${eventJson(event)}`);
        if ((i + 1) % EVENTS_PER_TURN === 0) await turn();
      }
      res.end(`],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
    } catch (error) {
      if (res.headersSent) {
        res.destroy(); // the client left mid-page, or the page cannot be finished: it sees a cut response
        return;
      }
      if (error instanceof StoreInputError) return send(res, errorResponse(400, error.message));
      throw error;
    }
  }

  async function stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
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

  return {
    serves: (path) => path === "/events" || path === "/events/stream" || path === "/event-types",
    async handle(path, req, res) {
      const refusal = await authorize(req);
      if (refusal) return send(res, refusal);
      if (path === "/events") return list(req, res);
      if (path === "/event-types") {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end(req.method === "HEAD" ? undefined : eventTypes);
        return;
      }
      return stream(req, res);
    },
    close() {
      for (const controller of streams) controller.abort();
    },
  };
}

/**
 * One stored event as JSON. The payload is embedded as the exact JSON text that was received and validated,
 * so int64 ids beyond 2^53 arrive intact (re-serializing through `JSON.parse` would round them).
 */
function eventJson(event: InboxEvent): string {
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
function closedSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  return controller.signal;
}

function headerString(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** The query of a request, or why it is refused: a parameter given twice (`?limit=1&limit=5000`) has no one meaning. */
function queryOf(req: IncomingMessage): URLSearchParams | string {
  const query = new URL(req.url ?? "/", "http://receiver").searchParams;
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name))
      return `Query parameter '${name.slice(0, 50)}' is given more than once; give it once.`;
    seen.add(name);
  }
  return query;
}
