import { readiness } from "@plant-store/app-kit";
import { adminOpenApi } from "../openapi.js";
import type { AdminContext, ResourceHandlers } from "./context.js";
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
  };
}
