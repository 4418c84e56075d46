import type { AdminInput } from "@plant-store/admin-api";
import { type Catalog, DEFAULT_EVENT_TYPE } from "@plant-store/spec";
import { type BatchProblem, InvalidBatchError, OPERATOR_APPLICATION_ID } from "@plant-store/store";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, type Problem, refused } from "../route-table.js";
import { tracePublish } from "../tracing.js";
import { type AdminContext, type ResourceHandlers, requestView } from "./context.js";

const decoder = new TextDecoder();

/**
 * The routes tagged `events`: publish an event or a batch, list the event types, get a published message.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...eventHandlers(context), … });
 * ```
 */
export function eventHandlers(context: AdminContext): ResourceHandlers<"events"> {
  return {
    publishEvent: { handle: (input) => publishEvent(context, input) },
    publishEvents: { handle: (input) => publishEvents(context, input) },
    listEventTypes: { handle: async () => ({ data: [...context.catalog] }) },
    getMessage: { handle: (input, { request, reply }) => getMessage(context, input, request, reply) },
  };
}

/**
 * Whether `type` is one of the catalog's webhooks.
 *
 * @example
 * ```ts
 * isKnownType(catalog, "newPlant"); // true
 * ```
 */
export function isKnownType(catalog: Catalog, type: string): boolean {
  return catalog.some((entry) => entry.type === type);
}

async function publishEvent(
  { store, catalog, tracer }: AdminContext,
  { query, headers, body }: AdminInput<"publishEvent">,
) {
  if (
    query.application !== undefined &&
    (await store.applications.get(query.application))?.id === OPERATOR_APPLICATION_ID
  )
    throw new ApiError(400, "The operator application receives only the sender's own operational webhooks.");
  const key = headers["idempotency-key"];
  const type = query.type ?? DEFAULT_EVENT_TYPE;
  // Lossless: the spec's int64 values are accepted as sent (the sender only relays bytes).
  const result = await tracePublish(tracer(), isKnownType(catalog, type) ? type : undefined, (traceContext) =>
    store.outbox.publish(body, {
      mode: "lossless",
      catalog,
      ...(query.type !== undefined && { eventType: query.type }),
      ...(key !== undefined && { idempotencyKey: key }),
      ...(query.application !== undefined && { application: query.application }),
      ...(traceContext && { traceContext }),
    }),
  );
  return { messageId: result.messageId, deliveries: result.deliveries, duplicate: result.duplicate };
}

/** A batch: every event stored in one transaction, or none and a 422 naming each refused one. */
async function publishEvents(
  { store, catalog, tracer }: AdminContext,
  { body }: AdminInput<"publishEvents">,
) {
  const { results } = await tracePublish(tracer(), undefined, async (traceContext) => {
    try {
      const events = body.events.map((e) => ({
        event: e.payload,
        ...(e.type !== undefined && { eventType: e.type }),
        ...(e.idempotencyKey !== undefined && { idempotencyKey: e.idempotencyKey }),
        ...(traceContext && { traceContext }),
      }));
      return { results: await store.outbox.publishMany(events, { mode: "lossless", catalog }) };
    } catch (error) {
      if (error instanceof InvalidBatchError) throw refused(error.problems.flatMap(batchProblem));
      throw error;
    }
  });
  return {
    data: results.map((r) => ({ messageId: r.messageId, deliveries: r.deliveries, duplicate: r.duplicate })),
  };
}

/** Where in the request body a refused event's problem is: its payload's pointers, its type or its key. */
function batchProblem({ index, code, message, issues }: BatchProblem): Problem[] {
  const at = `/events/${index}`;
  if (issues?.length) {
    return issues.map((issue) => ({
      pointer: `${at}/payload${issue.pointer}`,
      index,
      message: issue.message,
    }));
  }
  const field = FIELD_OF_CODE[code];
  return [{ pointer: field ? `${at}/${field}` : at, index, message }];
}

const FIELD_OF_CODE: Record<string, string> = {
  unknown_event_type: "type",
  invalid_idempotency_key: "idempotencyKey",
  idempotency_conflict: "idempotencyKey",
};

async function getMessage(
  context: AdminContext,
  { params }: AdminInput<"getMessage">,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const message = await requestView(context, request).getMessage(params.id);
  if (!message) throw new ApiError(404, `No message ${params.id}.`);
  const meta = JSON.stringify({
    id: message.id,
    idempotencyKey: message.idempotencyKey,
    eventType: message.eventType,
    createdAt: message.createdAt.toISOString(),
  });
  // The payload is embedded as published, so int64 ids stay exact.
  return reply
    .header("content-type", "application/json; charset=utf-8")
    .send(`${meta.slice(0, -1)},"payload":${decoder.decode(message.body)}}`);
}
