import type { ReceiverInput } from "@plant-store/admin-api";
import { parseDateTime } from "@plant-store/core";
import { type Delivery, type DeliveryAttempt, forwardMessageId } from "@plant-store/store";
import { type DestinationsContext, iso } from "./context.js";
import { loadDestination } from "./destinations.js";
import { ApiError, type ReceiverHandlers } from "./router.js";

type ForwardOp = "listForwards" | "listForwardAttempts" | "listEventForwards" | "replayDestination";

/** A forward's message id names its inbox event (`forwardMessageId(seq)`); this is what precedes the seq. */
const FORWARD_MESSAGE_PREFIX = forwardMessageId("");
/** Forwards a replay by time reads per page. */
const REPLAY_PAGE = 500;

/**
 * The routes of forwards: a destination's (newest first), a forward's attempts, an event's forwards with their
 * attempts, and replay — one event, every finished forward since a time, or the failed ones.
 *
 * @example
 * ```ts
 * const handlers = { ...destinationHandlers(context), ...forwardHandlers(context) };
 * ```
 */
export function forwardHandlers(context: DestinationsContext): Pick<ReceiverHandlers, ForwardOp> {
  const { store } = context;
  return {
    listForwards: async ({ params, query }) => {
      await loadDestination(context, params.id);
      const page = await store.outbox.listDeliveries({
        subscriptionId: params.id,
        state: query.state,
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
      return { data: page.items.map(forwardJson), nextCursor: page.nextCursor };
    },
    listForwardAttempts: async ({ params }) => {
      const forward = await store.outbox.getDelivery(Number(params.id));
      if (!forward?.messageId.startsWith(FORWARD_MESSAGE_PREFIX))
        throw new ApiError(404, `No forward ${params.id}.`);
      return { data: (await store.outbox.listAttempts(forward.id)).map(attemptJson) };
    },
    listEventForwards: (input) => listEventForwards(context, input),
    replayDestination: (input) => replay(context, input),
  };
}

async function listEventForwards(
  { store }: DestinationsContext,
  { params }: ReceiverInput<"listEventForwards">,
) {
  const event = await store.inbox.get(params.id);
  if (!event) throw new ApiError(404, `No event ${params.id.slice(0, 100)}.`);
  const forwards = await eventForwards(store, event.seq);
  const data = await Promise.all(
    forwards.map(async (forward) => ({
      ...forwardJson(forward),
      attemptLog: (await store.outbox.listAttempts(forward.id)).map(attemptJson),
    })),
  );
  return {
    eventId: event.webhookId,
    seq: event.seq,
    receivedAt: event.receivedAt.toISOString(),
    processedAt: iso(event.processedAt),
    data,
  };
}

async function eventForwards(store: DestinationsContext["store"], seq: number): Promise<Delivery[]> {
  const page = await store.outbox.listDeliveries({
    messageId: forwardMessageId(seq),
    limit: REPLAY_PAGE,
  });
  return page.items;
}

async function replay(context: DestinationsContext, { params, body }: ReceiverInput<"replayDestination">) {
  const { store } = context;
  const destination = await loadDestination(context, params.id);
  if (!destination.enabled) {
    throw new ApiError(409, `Destination ${destination.id} is disabled; enable it first.`);
  }
  const since = body.since === undefined ? undefined : (parseDateTime(body.since) as number);
  if (body.failed) return { requeued: await store.outbox.recover(destination.id, since ?? 0) };
  if (body.eventId !== undefined) {
    const event = await store.inbox.get(body.eventId);
    const forward =
      event && (await eventForwards(store, event.seq)).find((f) => f.subscriptionId === destination.id);
    if (!forward) {
      throw new ApiError(404, `Event ${body.eventId.slice(0, 100)} has no forward to ${destination.id}.`);
    }
    await store.outbox.resend(forward.id);
    return { requeued: 1 };
  }
  return { requeued: await resendFinishedSince(context, destination.id, since ?? 0) };
}

/** Resends every delivered or failed forward of the destination created at or after `since`. */
async function resendFinishedSince({ store }: DestinationsContext, destinationId: string, since: number) {
  let requeued = 0;
  for (const state of ["delivered", "failed"] as const) {
    let cursor: string | null = null;
    do {
      const page = await store.outbox.listDeliveries({
        subscriptionId: destinationId,
        state,
        limit: REPLAY_PAGE,
        cursor,
      });
      const recent = page.items.filter((forward) => forward.createdAt.getTime() >= since);
      for (const forward of recent) await store.outbox.resend(forward.id);
      requeued += recent.length;
      // Newest first: once a page reaches back past `since`, the rest are older.
      cursor = recent.length < page.items.length ? null : page.nextCursor;
    } while (cursor);
  }
  return requeued;
}

function forwardJson(d: Delivery) {
  return {
    id: d.id,
    destinationId: d.subscriptionId,
    eventSeq: Number(d.messageId.slice(FORWARD_MESSAGE_PREFIX.length)),
    state: d.state,
    attempts: d.attempts,
    dueAt: d.dueAt.toISOString(),
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    finishedAt: iso(d.finishedAt),
  };
}

function attemptJson(a: DeliveryAttempt) {
  return {
    attempt: a.attempt,
    attemptedAt: a.attemptedAt.toISOString(),
    status: a.status,
    latencyMs: a.latencyMs,
    responseBody: a.responseBody,
    error: a.error,
  };
}
