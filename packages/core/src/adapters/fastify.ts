/**
 * Fastify adapter: a plugin that serves the webhook with its own raw-body parser, encapsulated so
 * the rest of the app keeps Fastify's JSON parsing.
 *
 * @module
 * @example
 * ```ts
 * import Fastify from "fastify";
 * import { plantStoreWebhook } from "@plant-store/core/fastify";
 *
 * const app = Fastify();
 * await app.register(plantStoreWebhook, { tokens: [process.env.TOKEN!], onEvent: save });
 * await app.listen({ port: 4000 });
 * ```
 */
import type { IncomingMessage } from "node:http";
import { WEBHOOK_PATH } from "@plant-store/spec";
import { createWebhookHandler, type WebhookHandlerOptions } from "../receive/handler.js";
import { PREFLIGHTED } from "../receive/preflighted.js";
import { errorResponse } from "../receive/responses.js";
import type { WebhookResponse } from "../receive/types.js";
import { nodeHeaders } from "./node.js";

/**
 * The methods the plugin routes, spelled as Fastify's `HTTPMethods` literals: Fastify 4 types `route({ method })`
 * as that union only (Fastify 5 also takes any string), so a plain `string[]` would not type-check against it.
 */
export type FastifyRouteMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/**
 * The slice of a Fastify instance the plugin uses (structural, so Fastify stays an optional peer); both Fastify 4
 * and 5 instances fit it.
 */
export interface FastifyLike {
  removeAllContentTypeParsers(): void;
  setErrorHandler(
    handler: (
      error: Error & { statusCode?: number; code?: string },
      request: unknown,
      reply: FastifyReplyLike,
    ) => unknown,
  ): void;
  addContentTypeParser(
    contentType: string | RegExp | string[],
    opts: { parseAs: "buffer"; bodyLimit?: number },
    parser: (req: unknown, body: Buffer, done: (err: Error | null, body?: unknown) => void) => void,
  ): void;
  route(opts: {
    method: FastifyRouteMethod[];
    url: string;
    bodyLimit?: number;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  }): unknown;
}
interface FastifyRequestLike {
  method: string;
  url: string;
  raw: IncomingMessage;
  body?: unknown;
}
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload?: string): unknown;
}

/** Plugin options: the pipeline's options, plus `path` (default `/plant/webhook`). */
export type FastifyWebhookOptions = WebhookHandlerOptions;

const METHODS: FastifyRouteMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Fastify plugin: `app.register(plantStoreWebhook, options)`. Every method on the path reaches the
 * pipeline, so wrong methods, content types and oversized bodies get the contract's answers.
 *
 * @example
 * ```ts
 * await app.register(plantStoreWebhook, { tokens: ["psk_…"], secrets: ["whsec_…"], onEvent: save });
 * ```
 */
export async function plantStoreWebhook(fastify: FastifyLike, options: FastifyWebhookOptions): Promise<void> {
  const path = options.path ?? WEBHOOK_PATH;
  const handler = createWebhookHandler({ ...options, path: null });
  // Fastify's own limit sits above ours so our 413 (with the contract's body) answers first.
  const bodyLimit = handler.maxBodyBytes + 1;
  fastify.removeAllContentTypeParsers();
  fastify.setErrorHandler((error, _request, reply) => {
    const response: WebhookResponse =
      error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? handler.tooLarge()
        : errorResponse(
            error.statusCode && error.statusCode < 500 ? error.statusCode : 503,
            error.statusCode && error.statusCode < 500
              ? `The request could not be read: ${error.message}`
              : "The event could not be processed right now. Retry later.",
          );
    const { connection: _dropped, ...rest } = response.headers;
    return reply.code(response.status).headers(rest).send(response.body);
  });
  fastify.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_req, body, done) => done(null, body));
  fastify.route({
    method: METHODS,
    url: path,
    bodyLimit,
    handler: async (request, reply) => {
      const base = { method: request.method, path, headers: nodeHeaders(request.raw) };
      const body = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      const response: WebhookResponse =
        handler.preflight(base) ?? (await handler.handle({ ...base, body }, PREFLIGHTED));
      const { connection: _dropped, ...rest } = response.headers;
      return reply.code(response.status).headers(rest).send(response.body);
    },
  });
}
