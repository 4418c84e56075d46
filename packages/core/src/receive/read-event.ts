import { EVENT_TYPE_HEADER } from "@plant-store/spec";
import { parseEvent } from "../events/index.js";
import type { SignatureOutcome } from "./check-signature.js";
import type { PipelineContext } from "./context.js";
import { keptHeaders } from "./kept-headers.js";
import { errorResponse } from "./responses.js";
import { truncate } from "./text.js";
import type { ReceivedEvent, WebhookRequest, WebhookResponse } from "./types.js";

/** What the parse stage found: the event to commit, or the refusal to answer. */
export type EventOutcome =
  | { readonly kind: "event"; readonly event: ReceivedEvent }
  | { readonly kind: "refused"; readonly response: WebhookResponse };

/**
 * The parse and validate stage: which webhook the request means (its `webhook-event-type`, else its path's, else the
 * fallback; 422 for a type not served), then the body parsed (400 not JSON) and validated against that webhook's
 * schema (422).
 *
 * @example
 * ```ts
 * const read = readEvent(context, request, signed);
 * if (read.kind === "refused") return read.response;
 * ```
 */
export function readEvent(
  context: PipelineContext,
  request: WebhookRequest,
  signed: Exclude<SignatureOutcome, { kind: "refused" }>,
): EventOutcome {
  const { byType, byPath, fallback } = context.routes;
  const named = request.headers(EVENT_TYPE_HEADER);
  const entry = named ? byType.get(named) : ((byPath ? byPath.get(request.path) : fallback) ?? fallback);
  if (entry === undefined) {
    return refused(
      422,
      `This receiver does not accept ${JSON.stringify(truncate(named ?? "", 100))} events; it accepts ${[...byType.keys()].join(", ")}. Subscribe only to those event types.`,
    );
  }
  const parsed = parseEvent(entry, request.body, { mode: context.mode });
  if (!parsed.ok) return refused(parsed.kind === "json" ? 400 : 422, parsed.message);
  const event: ReceivedEvent = {
    type: entry.type,
    id: signed.id,
    timestamp: signed.timestamp,
    payload: parsed.value,
    body: request.body,
    headers: keptHeaders(request.headers, named, signed),
  };
  return { kind: "event", event };
}

function refused(status: number, message: string): EventOutcome {
  return { kind: "refused", response: errorResponse(status, message) };
}
