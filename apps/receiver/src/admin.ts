import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createBearerCheck,
  createTokenVerifier,
  errorResponse,
  type WebhookResponse,
} from "@plant-store/core";
import { nodeHeaders, send } from "@plant-store/core/node";
import type { Catalog } from "@plant-store/spec";
import type { Store } from "@plant-store/store";
import { destinationHandlers } from "./admin/destinations.js";
import { forwardHandlers } from "./admin/forwards.js";
import { type ReceiverHandlers, serveRoute, servesRoute } from "./admin/router.js";
import { listEvents } from "./admin-list.js";
import { streamEvents } from "./admin-stream.js";

/** The read endpoints for operators, the CLI and dashboards. */
export interface AdminApi {
  serves(path: string): boolean;
  /** Whether `path` is a route of the destinations API (`receiverRoutes`), which takes other methods than GET. */
  servesRoute(path: string): boolean;
  handle(path: string, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every live stream (shutdown). */
  close(): void;
}

const REALM = "plant-store-admin";
/** The payload bytes a `GET /events` page holds at most (it holds at least one event, whatever its size). */
export const PAGE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * `GET /events` (newest first, cursor pages), `GET /events/stream` (server-sent events, resumable with
 * `Last-Event-ID`), `GET /event-types` (the webhooks served, as catalog entries: the answer of the sender's
 * `GET /event-types`) and the destinations API of `receiverRoutes` (`src/admin/`), behind admin bearer tokens. Without tokens they answer 404 saying they are off.
 *
 * @example
 * ```ts
 * const admin = createAdminApi({ store, adminTokens: ["sha256:…"] });
 * if (admin.serves(path)) await admin.handle(path, req, res);
 * ```
 */
export function createAdminApi(options: {
  store: Store;
  adminTokens: readonly string[];
  /** The webhooks served, listed by `GET /event-types`. Default none. */
  eventTypes?: Catalog;
  /** Whether the receiver holds ed25519 private keys (`--forward-private-key`): without, no destination signs v1a. */
  canSignAsymmetric?: boolean;
  /** A `GET /events` page ends before the payload that would take it past this. Default 4 MiB. */
  pageMaxBytes?: number;
}): AdminApi {
  const { store } = options;
  const pageMaxBytes = options.pageMaxBytes ?? PAGE_MAX_BYTES;
  const enabled = options.adminTokens.length > 0;
  const eventTypes = JSON.stringify({ data: options.eventTypes ?? [] });
  const checkBearer = enabled
    ? createBearerCheck({
        verifier: createTokenVerifier(options.adminTokens),
        realm: REALM,
        missing: "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
        rejected: "The admin token is not accepted.",
      })
    : null;
  const streams = new Set<AbortController>();
  const routeContext = {
    store,
    catalog: options.eventTypes ?? [],
    canSignAsymmetric: options.canSignAsymmetric ?? false,
  };
  const handlers: ReceiverHandlers = {
    ...destinationHandlers(routeContext),
    ...forwardHandlers(routeContext),
  };

  async function authorize(req: IncomingMessage): Promise<WebhookResponse | null> {
    if (!checkBearer) {
      return errorResponse(
        404,
        "The admin endpoints are off. Start the receiver with --admin-token to turn them on.",
      );
    }
    const auth = await checkBearer(nodeHeaders(req)("authorization"));
    return auth.ok ? null : errorResponse(auth.status, auth.message, auth.headers);
  }

  return {
    serves: (path) =>
      path === "/events" || path === "/events/stream" || path === "/event-types" || servesRoute(path),
    servesRoute,
    async handle(path, req, res) {
      const refusal = await authorize(req);
      if (refusal) {
        if (!req.complete) req.resume();
        return send(res, refusal);
      }
      if (servesRoute(path)) return serveRoute(handlers, path, req, res);
      if (path === "/events") return listEvents(store, pageMaxBytes, req, res);
      if (path === "/event-types") {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end(req.method === "HEAD" ? undefined : eventTypes);
        return;
      }
      return streamEvents(store, streams, req, res);
    },
    close() {
      for (const controller of streams) controller.abort();
    },
  };
}
