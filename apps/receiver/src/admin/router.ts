import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AdminRoute,
  type ReceiverInput,
  type ReceiverOperationId,
  type ReceiverReply,
  receiverRoutes,
} from "@plant-store/admin-api";
import { errorResponse } from "@plant-store/core";
import { send } from "@plant-store/core/node";
import { StoreConflictError, StoreInputError } from "@plant-store/store";
import type { z } from "zod";
import { queryOf } from "../admin-json.js";
import { jsonResponse } from "../http.js";

/** The largest JSON body a destinations route reads. */
export const ADMIN_BODY_MAX_BYTES = 64 * 1024;

/** The longest path parameter (as the sender's): no id is longer; the document lists 414 for longer ones. */
const MAX_PARAM_LENGTH = 100;

/** An HTTP error with the contract's `{ error, message }` body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** How the receiver answers one route of `receiverRoutes`, given its validated input. */
export type RouteHandler<Op extends ReceiverOperationId> = (
  input: ReceiverInput<Op>,
) => Promise<ReceiverReply<Op>>;

/** One handler per route of the table: a route the table lists but the receiver does not serve fails type-checking. */
export type ReceiverHandlers = { [Op in ReceiverOperationId]: RouteHandler<Op> };

/** A route's path template as a pattern with one group per parameter. */
interface CompiledRoute {
  operationId: ReceiverOperationId;
  route: AdminRoute;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = Object.entries(receiverRoutes).map(([operationId, route]) => {
  const names: string[] = [];
  const source = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return {
    operationId: operationId as ReceiverOperationId,
    route,
    pattern: new RegExp(`^${source}$`),
    names,
  };
});

/** Whether `path` is one of the table's paths (whatever the method). */
export function servesRoute(path: string): boolean {
  return compiled.some((entry) => entry.pattern.test(path));
}

/**
 * Serves one request to a path of `receiverRoutes`: finds the route by method (405 with `Allow` otherwise),
 * validates parameters, query and body with the route's zod schemas (the first problem answers 400), runs its
 * handler and answers with the route's success status. A store refusal becomes 400 (`StoreInputError`), 404
 * (`not_found`) or 409 (any other conflict), with the store's message.
 *
 * @example
 * ```ts
 * if (servesRoute(path)) await serveRoute(handlers, path, req, res);
 * ```
 */
export async function serveRoute(
  handlers: ReceiverHandlers,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const matching = compiled.filter((entry) => entry.pattern.test(path));
  const entry = matching.find((candidate) => candidate.route.method === req.method);
  if (!entry) {
    if (!req.complete) req.resume();
    const allow = matching.map((candidate) => candidate.route.method).join(", ");
    return send(res, errorResponse(405, `${req.method} is not allowed on ${path}; use ${allow}.`, { allow }));
  }
  try {
    const input = {
      params: paramsOf(entry, path),
      query: queryInput(entry.route, req),
      headers: {},
      body: entry.route.body ? parse(entry.route.body.schema, await bodyOf(entry.route, req)) : undefined,
    };
    if (!entry.route.body && !req.complete) req.resume();
    const handler = handlers[entry.operationId] as (input: unknown) => Promise<unknown>;
    const answer = await handler(input);
    send(res, jsonResponse(entry.route.ok.status, answer));
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    if (!req.complete) req.resume();
    send(res, errorResponse(refusal.status, refusal.message));
  }
}

function refusalOf(error: unknown): { status: number; message: string } | null {
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof StoreInputError) return { status: 400, message: error.message };
  if (error instanceof StoreConflictError)
    return { status: error.code === "not_found" ? 404 : 409, message: error.message };
  return null;
}

function paramsOf(entry: CompiledRoute, path: string): unknown {
  const values = entry.pattern.exec(path)?.slice(1) ?? [];
  const params: Record<string, string> = {};
  for (const [i, name] of entry.names.entries()) {
    if ((values[i] ?? "").length > MAX_PARAM_LENGTH) {
      throw new ApiError(
        414,
        `A path segment is longer than ${MAX_PARAM_LENGTH} characters; no id is that long.`,
      );
    }
    try {
      params[name] = decodeURIComponent(values[i] ?? "");
    } catch {
      throw new ApiError(400, "The URL is not valid: a malformed percent-encoding in the path.");
    }
  }
  return parse(entry.route.params, params);
}

function queryInput(route: AdminRoute, req: IncomingMessage): unknown {
  const query = queryOf(req);
  if (typeof query === "string") throw new ApiError(400, query);
  return parse(route.query, Object.fromEntries(query));
}

function parse(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return {};
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ApiError(400, result.error.issues[0]?.message ?? "The request is not valid.");
}

/** The request's JSON object body (`{}` for an optional one left out), read up to {@link ADMIN_BODY_MAX_BYTES}. */
async function bodyOf(route: AdminRoute, req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ADMIN_BODY_MAX_BYTES)
      throw new ApiError(413, `The body is larger than ${ADMIN_BODY_MAX_BYTES} bytes.`);
    chunks.push(chunk);
  }
  if (size === 0) {
    if (!route.body?.required) return {};
    throw new ApiError(400, "Send a JSON object body.");
  }
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) throw new ApiError(415, "The body must be application/json.");
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ApiError(400, "The body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "The body must be a JSON object.");
  }
  return value;
}
