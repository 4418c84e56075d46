import { createConsoleServer } from "@plant-store/console";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** The sender's console: its page and assets. */
export type ConsoleServer = ReturnType<typeof createConsoleServer>;

/**
 * The sender's console, to mount with {@link mountConsole}.
 *
 * @example
 * ```ts
 * const consoleServer = senderConsole();
 * ```
 */
export function senderConsole(): ConsoleServer {
  return createConsoleServer({ app: "sender" });
}

/**
 * Serves the console at `/console` (static, not part of the admin API's document; everything it shows comes
 * through the API).
 *
 * @example
 * ```ts
 * mountConsole(app, senderConsole());
 * ```
 */
export function mountConsole(app: FastifyInstance, consoleServer: ConsoleServer): void {
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const { status, headers, body } = consoleServer.respond(request.method, request.url.split("?")[0] ?? "/");
    return reply.code(status).headers(headers).send(body);
  };
  app.get("/console", serve);
  app.get("/console/*", serve);
}

/**
 * Whether a request is for the console, which is public (it holds no data). Decided by the route matched, not by
 * the path's text, so no `/console/../x` reaches another route unchecked; a request that matches no route under
 * `/console` only reaches the 404/405 answers.
 *
 * @example
 * ```ts
 * if (isConsoleRequest(consoleServer, request.routeOptions.url, path)) return;
 * ```
 */
export function isConsoleRequest(
  consoleServer: ConsoleServer,
  route: string | undefined,
  path: string,
): boolean {
  return (
    route === "/console" || route === "/console/*" || (route === undefined && consoleServer.serves(path))
  );
}
