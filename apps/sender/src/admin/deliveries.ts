import type { AdminInput } from "@plant-store/admin-api";
import type { Delivery } from "@plant-store/store";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../route-table.js";
import { type AdminContext, type ResourceHandlers, requestView } from "./context.js";
import { iso } from "./iso.js";

/**
 * The routes tagged `deliveries`: list, get, their attempts, and resend.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...deliveryHandlers(context), … });
 * ```
 */
export function deliveryHandlers(context: AdminContext): ResourceHandlers<"deliveries"> {
  const load = (params: { id: string }, request: FastifyRequest) => loadDelivery(context, params, request);
  return {
    listDeliveries: { handle: (input, { request }) => listDeliveries(context, input, request) },
    getDelivery: { load, handle: async (_input, { loaded }) => deliveryJson(loaded) },
    listAttempts: { load, handle: (_input, { loaded }) => listAttempts(context, loaded) },
    resendDelivery: {
      load,
      handle: async (_input, { loaded }) => deliveryJson(await context.store.outbox.resend(loaded.id)),
    },
  };
}

/** Found through the request's view: another application's delivery is not found, as an unknown one. */
async function loadDelivery(
  context: AdminContext,
  { id }: { id: string },
  request: FastifyRequest,
): Promise<Delivery> {
  const view = requestView(context, request);
  // A whole number beyond what any delivery can have is not malformed, only unknown.
  const found = Number.isSafeInteger(Number(id)) ? await view.getDelivery(Number(id)) : null;
  if (!found) throw new ApiError(404, `No delivery ${id}.`);
  return found;
}

async function listDeliveries(
  context: AdminContext,
  { query }: AdminInput<"listDeliveries">,
  request: FastifyRequest,
) {
  const page = await requestView(context, request).listDeliveries({
    ...(query.state && { state: query.state }),
    ...(query.subscriptionId && { subscriptionId: query.subscriptionId }),
    ...(query.messageId && { messageId: query.messageId }),
    ...(query.limit !== undefined && { limit: query.limit }),
    cursor: query.cursor ?? null,
  });
  return { data: page.items.map(deliveryJson), nextCursor: page.nextCursor };
}

async function listAttempts({ store }: AdminContext, delivery: Delivery) {
  const attempts = await store.outbox.listAttempts(delivery.id);
  return {
    // Numbered through the whole history: a resend starts a new retry round, not a new count.
    data: attempts.map((a, i) => ({
      attempt: i + 1,
      attemptedAt: a.attemptedAt.toISOString(),
      status: a.status,
      latencyMs: a.latencyMs,
      responseBody: a.responseBody,
      error: a.error,
    })),
  };
}

function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    messageId: d.messageId,
    subscriptionId: d.subscriptionId,
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
