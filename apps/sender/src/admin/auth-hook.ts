import { type AdminRoute, adminRoutes } from "@plant-store/admin-api";
import {
  bearerChallenge,
  createBearerCheck,
  createTokenVerifier,
  PORTAL_TOKEN_PREFIX,
  parseAuthorization,
} from "@plant-store/core";
import { nodeHeaders } from "@plant-store/core/node";
import type { Store } from "@plant-store/store";
import type { FastifyInstance } from "fastify";
import { type ConsoleServer, isConsoleRequest } from "./console-mount.js";
import type { Principal, Principals } from "./principal.js";
import { sendError } from "./send-error.js";

/** The routes of the table by Fastify's method and URL pattern (`/subscriptions/:id`). */
const ROUTES = new Map<string, AdminRoute>(
  Object.values(adminRoutes).map((route) => [
    `${route.method} ${route.path.replace(/\{([^}]+)\}/g, ":$1")}`,
    route as AdminRoute,
  ]),
);

const REALM = "plant-store-sender";
const OUT_OF_REACH = "A portal token cannot reach this operation: it needs the operator's token.";
const PORTAL_REFUSED =
  "The portal token is not accepted: it expired, was revoked, or was never issued. Ask for a new portal link.";

/**
 * Every request but the public routes' and the console's needs a bearer token: the operator's admin token (every
 * route), or a portal token (`pst_…`, one application's: only the routes the table marks `portal`, 403 elsewhere,
 * public routes included). A missing or refused one answers 401 (400 when malformed) with the `WWW-Authenticate`
 * challenge. The principal is recorded for the handlers in `principals`.
 *
 * @example
 * ```ts
 * requireAdminToken(app, { adminTokens: ["psk_…"], consoleServer, store, principals });
 * ```
 */
export function requireAdminToken(
  app: FastifyInstance,
  options: {
    adminTokens: readonly string[];
    consoleServer: ConsoleServer;
    store: Store;
    principals: Principals;
  },
): void {
  const checkBearer = createBearerCheck({
    verifier: createTokenVerifier(options.adminTokens),
    realm: REALM,
    missing: "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
    rejected: "The admin token is not accepted.",
  });
  const portalRefused = { "www-authenticate": bearerChallenge({ realm: REALM, error: "invalid_token" }) };
  const operator: Principal = Object.freeze({ kind: "operator" });
  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const route = ROUTES.get(`${request.method} ${request.routeOptions.url}`);
    const header = nodeHeaders(request.raw)("authorization");
    const portalToken = presentedPortalToken(header);
    if (route?.auth === false) {
      return portalToken === null ? undefined : sendError(reply, 403, OUT_OF_REACH);
    }
    if (isConsoleRequest(options.consoleServer, request.routeOptions.url, path)) return;
    if (portalToken !== null) {
      const found = await options.store.applications.verifyPortalToken(portalToken);
      if (!found) return sendError(reply.headers(portalRefused), 401, PORTAL_REFUSED);
      // A path the table does not have goes on to the 404 (or 405) answer, as for the operator.
      if (route === undefined) return;
      if (route.portal !== true) return sendError(reply, 403, OUT_OF_REACH);
      options.principals.set(request, { kind: "portal", ...found });
      return;
    }
    const auth = await checkBearer(header);
    if (!auth.ok) return sendError(reply.headers(auth.headers), auth.status, auth.message);
    options.principals.set(request, operator);
  });
}

/** The bearer token when it is a portal token (`pst_…`), else `null` (the admin check judges it). */
function presentedPortalToken(header: string | null | undefined): string | null {
  const auth = parseAuthorization(header);
  return auth.ok && auth.token.startsWith(PORTAL_TOKEN_PREFIX) ? auth.token : null;
}
