import type { FastifyInstance } from "fastify";
import { sendError } from "./send-error.js";

/** A served path, as a pattern, with the methods it takes. */
interface ServedPath {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * Keeps every route as a pattern with its methods, so a known path asked with another method answers 405 with an
 * `Allow` header, and any other path 404. Install before the routes are registered.
 *
 * @example
 * ```ts
 * installMethodNotAllowed(app);
 * app.get("/healthz", handler); // POST /healthz → 405, Allow: GET, HEAD
 * ```
 */
export function installMethodNotAllowed(app: FastifyInstance): void {
  const served: ServedPath[] = [];
  app.addHook("onRoute", (route) => addRoute(served, route.url, [route.method].flat()));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const match = served.find((entry) => entry.pattern.test(path));
    if (match) {
      const allow = [...match.methods].sort().join(", ");
      reply.header("allow", allow);
      return sendError(reply, 405, `${request.method} is not allowed on ${path}; use ${allow}.`);
    }
    return sendError(reply, 404, `Nothing is served at ${request.method} ${path}. See GET /openapi.json.`);
  });
}

function addRoute(served: ServedPath[], url: string, methods: readonly string[]): void {
  const pattern = new RegExp(`^${url.replace(/:[^/]+/g, "[^/]+")}$`);
  let entry = served.find((r) => r.pattern.source === pattern.source);
  if (!entry) {
    entry = { pattern, methods: new Set() };
    served.push(entry);
  }
  for (const method of methods) entry.methods.add(method);
  if (entry.methods.has("GET")) entry.methods.add("HEAD");
}
