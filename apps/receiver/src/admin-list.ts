import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setImmediate as turn } from "node:timers/promises";
import { errorResponse, PAGE_SIZE } from "@plant-store/core";
import { send } from "@plant-store/core/node";
import { type Store, StoreInputError } from "@plant-store/store";
import { closedSignal, EVENTS_PER_TURN, eventJson, queryOf } from "./admin-json.js";

/**
 * `GET /events`: a page of stored events, newest first, at most `limit` of them and `pageMaxBytes` of payload,
 * written event by event at the pace the client reads.
 *
 * @example
 * ```ts
 * await listEvents(store, PAGE_MAX_BYTES, req, res);
 * ```
 */
export async function listEvents(
  store: Store,
  pageMaxBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
    // Written event by event at the pace the client reads, never joined into one string: a page of large payloads
    // is never held twice over in memory.
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
