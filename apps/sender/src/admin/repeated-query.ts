import type { FastifyInstance } from "fastify";
import { sendError } from "./send-error.js";

/**
 * A repeated query parameter (`?state=a&state=b`) arrives as an array: refused by name rather than passed on.
 *
 * @example
 * ```ts
 * refuseRepeatedQuery(app); // GET /deliveries?state=a&state=b → 400
 * ```
 */
export function refuseRepeatedQuery(app: FastifyInstance): void {
  app.addHook("preValidation", async (request, reply) => {
    for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
      if (Array.isArray(value)) {
        return sendError(
          reply,
          400,
          `Query parameter '${name.slice(0, 50)}' is given ${value.length} times; give it once.`,
        );
      }
    }
  });
}
