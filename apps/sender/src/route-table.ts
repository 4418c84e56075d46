import {
  type AdminInput,
  type AdminOperationId,
  type AdminReply,
  type AdminRoute,
  adminRoutes,
} from "@plant-store/admin-api";
import { parseJsonLossless, toJsonPointer } from "@plant-store/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";

/** One refused part of a request body, as the contract's `Problem`. */
export interface Problem {
  pointer: string;
  index?: number;
  message: string;
}

/** An HTTP error with the contract's `{ error, message }` body (and `problems`, when it names refused parts). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems?: readonly Problem[],
  ) {
    super(message);
  }
}

/**
 * How the sender serves one route: `load` finds the resource the path names (so an unknown id answers 404 before
 * its body is judged), `handle` answers. `handle` returns the answer (sent with the route's success status) or
 * the reply it sent itself (a body kept as bytes).
 */
export interface RouteHandler<Op extends AdminOperationId, Loaded = undefined> {
  load?: (params: AdminInput<Op>["params"], request: FastifyRequest) => Promise<Loaded>;
  handle: (
    input: AdminInput<Op>,
    context: { loaded: Loaded; request: FastifyRequest; reply: FastifyReply },
  ) => Promise<AdminReply<Op> | FastifyReply>;
}

/**
 * One handler per route of the table (a route the table lists but the sender does not serve fails type-checking);
 * `Loaded` names what each route's `load` finds.
 */
export type RouteHandlers<Loaded extends Partial<Record<AdminOperationId, unknown>>> = {
  [Op in AdminOperationId]: RouteHandler<Op, Op extends keyof Loaded ? Loaded[Op] : undefined>;
};

/** The operation ids the route table tags with `tag`: one resource's routes. */
export type TaggedOperation<Tag extends AdminRoute["tag"]> = {
  [Op in AdminOperationId]: (typeof adminRoutes)[Op]["tag"] extends Tag ? Op : never;
}[AdminOperationId];

/**
 * Registers every route of `adminRoutes` on `app` with its handler, validating parameters, query, headers and body
 * with the route's zod schemas (the first problem answers 400 with its message). Bodies arrive as JSON text (the
 * sender's content-type parser keeps the bytes); a route's `raw` body is passed on as text, any other is parsed
 * and must be a JSON object.
 *
 * @example
 * ```ts
 * registerRoutes(app, { health: { handle: async () => ({ status: "ok" }) }, … });
 * ```
 */
export function registerRoutes<Loaded extends Partial<Record<AdminOperationId, unknown>>>(
  app: FastifyInstance,
  handlers: RouteHandlers<Loaded>,
): void {
  for (const [operationId, r] of Object.entries(adminRoutes)) {
    const route = r as AdminRoute;
    const handler = handlers[operationId as AdminOperationId] as RouteHandler<AdminOperationId, unknown>;
    app.route({
      method: route.method,
      url: route.path.replace(/\{([^}]+)\}/g, ":$1"),
      config: { auth: route.auth !== false },
      ...(route.body?.limit !== undefined && { bodyLimit: route.body.limit }),
      handler: async (request, reply) => {
        const params = parse(route.params, request.params);
        const loaded = handler.load ? await handler.load(params as never, request) : undefined;
        const input = {
          params,
          query: parse(route.query, request.query),
          headers: route.headers ? parse(route.headers, headerValues(route.headers, request)) : {},
          body: route.body ? parseBody(route.body, bodyOf(route.body, request)) : undefined,
        };
        const answer = await handler.handle(input as never, { loaded, request, reply });
        if ((answer as unknown) === reply) return reply;
        return reply.code(route.ok.status).send(answer);
      },
    });
  }
}

function parse(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return {};
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ApiError(400, result.error.issues[0]?.message ?? "The request is not valid.");
}

/**
 * A body by its route's schema: the first problem answers 400, or for a `lossless` body every problem answers 422
 * with its JSON pointer, and an array over its maximum 413.
 */
function parseBody(body: NonNullable<AdminRoute["body"]>, value: unknown): unknown {
  if (!body.lossless) return parse(body.schema, value);
  const result = body.schema.safeParse(value);
  if (result.success) return result.data;
  const tooBig = result.error.issues.find((issue) => issue.code === "too_big" && issue.origin === "array");
  if (tooBig) throw new ApiError(413, tooBig.message);
  throw refused(
    result.error.issues.map((issue) => ({
      pointer: toJsonPointer(issue.path),
      ...(issue.path[0] === "events" && typeof issue.path[1] === "number" && { index: issue.path[1] }),
      message: issue.message,
    })),
  );
}

/**
 * A 422 naming every refused part of the body (nothing was done): the message names the first and how many.
 *
 * @example
 * ```ts
 * throw refused([{ pointer: "/events/3/payload/name", index: 3, message: "Required" }]);
 * ```
 */
export function refused(problems: readonly Problem[]): ApiError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more; see problems)` : "";
  return new ApiError(
    422,
    `Refused, nothing stored: ${first?.pointer || "/"}: ${first?.message}${more}`,
    problems,
  );
}

/**
 * The declared headers' values; a header on more than one line is refused by name (node joins repeated lines
 * with ", ", so "k1" + "k2" would otherwise be read as one value).
 */
function headerValues(schema: z.ZodObject, request: FastifyRequest): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const lines = request.raw.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name);
    const value = request.headers[name];
    if (lines.length > 1 || Array.isArray(value)) {
      throw new ApiError(400, `${displayName(name)} is given on ${lines.length} header lines; give it once.`);
    }
    if (typeof value === "string") values[name] = value;
  }
  return values;
}

function bodyOf(body: NonNullable<AdminRoute["body"]>, request: FastifyRequest): unknown {
  if (request.body === undefined) {
    if (!body.required) return {};
    throw new ApiError(400, body.raw ? "Send the event as a JSON body." : "Send a JSON object body.");
  }
  if (typeof request.body !== "string") throw new ApiError(400, "Send a JSON object body.");
  if (body.raw) return request.body;
  let value: unknown;
  try {
    value = body.lossless ? parseJsonLossless(request.body) : JSON.parse(request.body);
  } catch {
    throw new ApiError(400, "The body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "The body must be a JSON object.");
  }
  return value;
}

function displayName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}
