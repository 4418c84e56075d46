import { createNodeServer, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "@plant-store/app-kit";
import Fastify, { type FastifyInstance } from "fastify";
import { frameworkErrors } from "./error-mapping.js";

/** The admin API's body cap, unless configured: enough for any admin request, far under a memory risk. */
export const ADMIN_BODY_LIMIT = 64 * 1024;

/**
 * The admin API's Fastify instance, over the receiver's hardened node server: slow headers and bodies are cut at
 * these times (checked every second), and what node:http answers itself (no Host, two, an odd Expect, CONNECT,
 * unparsable HTTP) is JSON too.
 *
 * @example
 * ```ts
 * const app = createAdminServer({ bodyLimit: ADMIN_BODY_LIMIT });
 * ```
 */
export function createAdminServer(options: {
  bodyLimit: number;
  headersTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
}): FastifyInstance {
  const timeouts = {
    headersTimeoutMs: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
  };
  return Fastify({
    logger: false,
    bodyLimit: options.bodyLimit,
    serverFactory: (handler) => createNodeServer(handler, timeouts),
    requestTimeout: timeouts.requestTimeoutMs,
    frameworkErrors,
    // createNodeServer answers these already (answerClientError); Fastify's default would write a second answer.
    clientErrorHandler: () => {},
  });
}
