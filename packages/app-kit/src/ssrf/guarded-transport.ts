import { readCappedChunks, type TransportRequest, type TransportResponse } from "@plant-store/core";
import type { Dispatcher } from "undici";
import { beforeDeadline, type Deadline, startDeadline } from "./attempt-deadline.js";
import { agentOrThrow, type GuardContext, verdictFor } from "./guard-context.js";

/**
 * One guarded attempt for core's `deliver({ transport })`: judge the host, send through the Agent pinned to the
 * checked address, hand back the response; one deadline (DNS, connection, headers and body) bounds it all.
 *
 * @example
 * ```ts
 * const transport: Transport = (req) => guardedTransport(guard, req);
 * ```
 */
export async function guardedTransport(
  guard: GuardContext,
  req: TransportRequest,
): Promise<TransportResponse> {
  const { deadline, clear } = startDeadline(req.timeoutMs);
  let response: Dispatcher.ResponseData;
  try {
    response = await sendPinned(guard, req, deadline);
  } catch (error) {
    clear();
    throw error;
  }
  return transportResponse(response, req.maxResponseBytes, clear);
}

/** Judges the target and sends the request to the checked address. */
async function sendPinned(
  guard: GuardContext,
  req: TransportRequest,
  deadline: Deadline,
): Promise<Dispatcher.ResponseData> {
  const url = new URL(req.url);
  const verdict = verdictFor(guard, url);
  // A host name's lookup counts within the deadline: a resolver that stalls must not hold the attempt past
  // its timeout (and its lease). An IP literal's verdict is at hand.
  const dispatcher = agentOrThrow(
    guard,
    url,
    verdict instanceof Promise ? await beforeDeadline(verdict, deadline) : verdict,
  );
  // undici's request follows no redirects; the body is read (capped) by deliver through readBody. Straight to
  // the Agent with origin and path: the top-level request(url) would only derive the same two from the URL.
  return dispatcher.request({
    origin: url.origin,
    path: url.search ? url.pathname + url.search : url.pathname,
    method: req.method as "POST",
    headers: req.headers,
    body: req.body,
    signal: deadline,
  });
}

/** Statuses whose response has no body, whatever its headers say (RFC 9110 §6.4.1). */
const NO_BODY = new Set([204, 304]);

/** The response as core reads it; the deadline ends with the body. */
function transportResponse(
  response: Dispatcher.ResponseData,
  maxResponseBytes: number,
  clear: () => void,
): TransportResponse {
  const headers = response.headers;
  return {
    status: response.statusCode,
    headers: {
      get(name) {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    },
    readBody: () => {
      // A body whose length is declared and within the cap is read in one go (undici frames it to that length),
      // as is the empty one of a 204 or 304 (RFC 9110: they have none); otherwise it is streamed and cut at the cap.
      const length = NO_BODY.has(response.statusCode) ? 0 : Number(headers["content-length"] ?? Number.NaN);
      const body =
        length <= maxResponseBytes
          ? response.body.text()
          : readCappedChunks(response.body[Symbol.asyncIterator](), maxResponseBytes);
      return body.finally(clear);
    },
  };
}
