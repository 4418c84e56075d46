import { adminRoutes } from "@plant-store/admin-api";
import { createBearerCheck, createTokenVerifier } from "@plant-store/core";
import { nodeHeaders } from "@plant-store/core/node";
import type { FastifyInstance } from "fastify";
import { type ConsoleServer, isConsoleRequest } from "./console-mount.js";
import { sendError } from "./send-error.js";

/** The paths served without an admin token (health, readiness, metrics, the document), from the route table. */
const PUBLIC_PATHS = new Set<string>(
  Object.values(adminRoutes)
    .filter((route) => "auth" in route && route.auth === false)
    .map((route) => route.path),
);

/**
 * Every request but the public routes' and the console's needs an admin bearer token; a missing or refused one
 * answers 401 (400 when malformed) with the `WWW-Authenticate` challenge.
 *
 * @example
 * ```ts
 * requireAdminToken(app, { adminTokens: ["psk_…"], consoleServer });
 * ```
 */
export function requireAdminToken(
  app: FastifyInstance,
  options: { adminTokens: readonly string[]; consoleServer: ConsoleServer },
): void {
  const checkBearer = createBearerCheck({
    verifier: createTokenVerifier(options.adminTokens),
    realm: "plant-store-sender",
    missing: "Missing admin bearer token. Send 'Authorization: Bearer <admin token>'.",
    rejected: "The admin token is not accepted.",
  });
  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (PUBLIC_PATHS.has(path)) return;
    if (isConsoleRequest(options.consoleServer, request.routeOptions.url, path)) return;
    const auth = await checkBearer(nodeHeaders(request.raw)("authorization"));
    if (!auth.ok) return sendError(reply.headers(auth.headers), auth.status, auth.message);
  });
}
