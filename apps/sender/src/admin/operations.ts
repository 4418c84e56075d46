import { readiness } from "@plant-store/app-kit";
import type { FastifyRequest } from "fastify";
import { adminOpenApi } from "../openapi.js";
import { ApiError } from "../route-table.js";
import type { AdminContext, ResourceHandlers } from "./context.js";
import { principalOf } from "./principal.js";
import { sendError } from "./send-error.js";

/**
 * The routes tagged `operations`: health, readiness, metrics and the API's own document (no token needed).
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...operationHandlers(context), … });
 * ```
 */
export function operationHandlers(context: AdminContext): ResourceHandlers<"operations"> {
  const { store, metrics, logger } = context;
  return {
    health: { handle: async () => ({ status: "ok" }) },
    ready: {
      handle: async (_input, { reply }) => {
        const ready = await readiness(store, { app: "sender", logger });
        if (ready.status === 200) return ready.body;
        return sendError(reply, ready.status, ready.body.message);
      },
    },
    metrics: {
      handle: async (_input, { reply }) =>
        reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics()),
    },
    openapi: { handle: async () => adminOpenApi },
    getSession: { handle: (_input, { request }) => session(context, request) },
  };
}

/** Who the request's token speaks for; a portal's application deleted since answers 401 as a revoked token would. */
async function session(context: AdminContext, request: FastifyRequest) {
  const principal = principalOf(context.principals, request);
  if (principal.kind === "operator") return { role: "operator" as const };
  const application = await context.store.applications.get(principal.applicationId);
  if (!application) throw new ApiError(401, "The portal token is not accepted: ask for a new portal link.");
  return {
    role: "portal" as const,
    application: { id: application.id, uid: application.uid, name: application.name },
    expiresAt: principal.expiresAt.toISOString(),
  };
}
