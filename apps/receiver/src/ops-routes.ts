import type { IncomingMessage, ServerResponse } from "node:http";
import { logText, readiness } from "@plant-store/app-kit";
import type { createConsoleServer } from "@plant-store/console";
import { errorResponse } from "@plant-store/core";
import { send } from "@plant-store/core/node";
import type { Store } from "@plant-store/store";
import type { Logger } from "pino";
import type { AdminApi } from "./admin.js";
import { jsonResponse } from "./http.js";
import type { ReceiverMetrics } from "./metrics.js";

/** What the receiver's other routes are served with. */
export interface OpsRoutes {
  readonly store: Store;
  readonly metrics: ReceiverMetrics;
  readonly admin: AdminApi;
  readonly consoleServer: ReturnType<typeof createConsoleServer>;
  readonly logger: Logger | undefined;
  /** `POST /plant/webhook, …`: where webhooks go, for a 404's message. */
  readonly served: string;
}

/**
 * Serves everything but the webhooks: the console's pages, `/healthz`, `/readyz`, `/metrics` and the admin API
 * (GET and HEAD only); 404 elsewhere, 503 when serving fails.
 *
 * @example
 * ```ts
 * void serveOps(routes, requestPath(req.url), req, res);
 * ```
 */
export async function serveOps(
  routes: OpsRoutes,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const method = req.method ?? "GET";
    if (routes.consoleServer.serves(path)) return serveConsole(routes, method, path, req, res);
    const known =
      path === "/healthz" || path === "/readyz" || path === "/metrics" || routes.admin.serves(path);
    if (!known) {
      return send(res, errorResponse(404, `Nothing is served at ${path}. Webhooks go to ${routes.served}.`));
    }
    if (routes.admin.servesRoute(path)) return await routes.admin.handle(path, req, res);
    if (method !== "GET" && method !== "HEAD") {
      return send(
        res,
        errorResponse(405, `${method} is not allowed on ${path}; use GET.`, { allow: "GET, HEAD" }),
      );
    }
    if (!req.complete) req.resume();
    await serveKnown(routes, path, req, res);
  } catch (error) {
    routes.logger?.error({ path: logText(path), error: (error as Error).message }, "request failed");
    send(res, errorResponse(503, "The request could not be served right now. Retry later."));
  }
}

function serveConsole(
  routes: OpsRoutes,
  method: string,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if (!req.complete) req.resume();
  const { status, headers, body } = routes.consoleServer.respond(method, path);
  res.writeHead(status, headers);
  res.end(method === "HEAD" ? undefined : body);
}

async function serveKnown(routes: OpsRoutes, path: string, req: IncomingMessage, res: ServerResponse) {
  if (path === "/healthz") return send(res, jsonResponse(200, { status: "ok" }));
  if (path === "/readyz") {
    const ready = await readiness(routes.store, { app: "receiver", logger: routes.logger });
    return send(res, jsonResponse(ready.status, ready.body));
  }
  if (path === "/metrics") {
    const text = await routes.metrics.registry.metrics();
    return send(res, {
      status: 200,
      headers: { "content-type": routes.metrics.registry.contentType },
      body: text,
    });
  }
  await routes.admin.handle(path, req, res);
}
