import type { AdminInput } from "@plant-store/admin-api";
import { type Catalog, DEFAULT_EVENT_TYPE } from "@plant-store/spec";
import { OPERATOR_APPLICATION_ID } from "@plant-store/store";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../route-table.js";
import { tracePublish } from "../tracing.js";
import { type AdminContext, type ResourceHandlers, requestView } from "./context.js";

const decoder = new TextDecoder();

/**
 * The routes tagged `events`: publish an event, list the event types, get a published message.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...eventHandlers(context), … });
 * ```
 */
export function eventHandlers(context: AdminContext): ResourceHandlers<"events"> {
  return {
    publishEvent: { handle: (input) => publishEvent(context, input) },
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
