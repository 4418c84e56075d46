import { stringifyJson } from "@plant-store/core";
import type { z } from "zod";
import { DEFAULT_ADMIN_TIMEOUT_MS } from "./defaults.js";
import { receiverRoutes } from "./receiver-routes.js";
import {
  type AdminAnswer,
  type AdminOperationId,
  type AdminRequest,
  type AdminRoute,
  adminRoutes,
  type RouteAnswer,
  type RouteRequest,
  type RouteTable,
} from "./routes.js";

export { DEFAULT_ADMIN_TIMEOUT_MS };

/** Options of {@link createAdminClient}. */
export interface AdminClientOptions {
  /** The sender's admin API, e.g. `http://127.0.0.1:4001` (a path prefix is kept). */
  baseUrl: string | URL;
  /** An admin bearer token. */
  token: string;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Reads a JSON answer. Default `JSON.parse`; a parser that keeps each number's text lets a caller show a message's
   * payload with int64 ids beyond 2^53 exactly (the console does).
   */
  parse?: (text: string) => unknown;
}

/** The outcome of one call, as a value: the answer, or why there is none. */
export type AdminResult<T> =
  | { ok: true; status: number; value: T }
  /** The sender answered an error; `message` is its `{ error, message }` message (or the text it sent). */
  | { ok: false; kind: "status"; status: number; body: unknown; message: string }
  /** A redirect (never followed: the admin token would go with it). */
  | { ok: false; kind: "redirect"; status: number; location: string | null }
  /** The answer is not JSON: probably not the sender's admin API. */
  | { ok: false; kind: "not-json"; status: number; text: string }
  /** No answer: refused, unreachable, or over the deadline (`error` is what `fetch` threw). */
  | { ok: false; kind: "unreachable"; error: unknown };

/** The result of {@link AdminClient.check}: the first thing the sender would refuse, by field. */
export type AdminCheck = { ok: true } | { ok: false; field: string; message: string };

/** A call by operation id, with the route's request and answer types. */
export type AdminCall = <Op extends AdminOperationId>(
  operation: Op,
  request: AdminRequest<Op>,
) => Promise<AdminResult<AdminAnswer<Op>>>;

/** A typed client of the admin API. */
export interface AdminClient {
  call: AdminCall;
  /** Validates a request with the route's schemas (what the sender checks first), sending nothing. */
  check<Op extends AdminOperationId>(operation: Op, request: AdminRequest<Op>): AdminCheck;
}

/**
 * A small fetch client of the sender's admin API, typed by {@link adminRoutes}: the operation ids, their parameters
 * and bodies, and their answers come from the same zod schemas the sender validates with. Errors are values.
 *
 * @example
 * ```ts
 * const admin = createAdminClient({ baseUrl: "http://127.0.0.1:4001", token: "psk_…" });
 * const result = await admin.call("getSubscription", { params: { id: "sub_…" } });
 * if (result.ok) console.log(result.value.url);
 * else if (result.kind === "status") console.error(result.status, result.message);
 * ```
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  return createRouteClient(adminRoutes, options);
}

/** A typed client of any route table's admin API (the sender's `adminRoutes`, the receiver's `receiverRoutes`). */
export interface RouteClient<T extends RouteTable> {
  call<Op extends keyof T & string>(
    operation: Op,
    request: RouteRequest<T, Op>,
  ): Promise<AdminResult<RouteAnswer<T, Op>>>;
  /** Validates a request with the route's schemas (what the server checks first), sending nothing. */
  check<Op extends keyof T & string>(operation: Op, request: RouteRequest<T, Op>): AdminCheck;
}

/**
 * A fetch client of the admin API that `routes` describes: {@link createAdminClient} for the sender's,
 * `createReceiverAdminClient` for the receiver's. Errors are values.
 *
 * @example
 * ```ts
 * const client = createRouteClient(receiverRoutes, { baseUrl: "http://127.0.0.1:4000", token: "psk_…" });
 * ```
 */
export function createRouteClient<T extends RouteTable>(
  routes: T,
  options: AdminClientOptions,
): RouteClient<T> {
  const config: ClientConfig = {
    base: String(options.baseUrl).endsWith("/") ? String(options.baseUrl) : `${options.baseUrl}/`,
    token: options.token,
    fetch: options.fetch ?? fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_ADMIN_TIMEOUT_MS,
    parse: options.parse ?? JSON.parse,
  };
  return {
    call: (operation, request) => callRoute(config, routes[operation] as AdminRoute, request) as never,
    check: (operation, request) => checkRequest(routes[operation] as AdminRoute, request),
  };
}

/** A client's options, resolved. */
interface ClientConfig {
  base: string;
  token: string;
  fetch: typeof fetch;
  timeoutMs: number;
  parse: (text: string) => unknown;
}

/** A request as the client reads it, whatever its operation. */
interface AnyRequest {
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string | undefined>;
  body?: unknown;
}

async function callRoute(
  config: ClientConfig,
  route: AdminRoute,
  request: unknown,
): Promise<AdminResult<unknown>> {
  const req = request as AnyRequest;
  const body =
    req.body === undefined
      ? undefined
      : typeof req.body === "string" || req.body instanceof Uint8Array
        ? req.body
        : stringifyJson(req.body);
  let res: Response;
  try {
    // Called as a function, not as a method of `config`: a browser's fetch throws "Illegal invocation" there.
    const send = config.fetch;
    res = await send(requestUrl(config.base, route, req), {
      method: route.method,
      headers: requestHeaders(config.token, req, body !== undefined),
      ...(body !== undefined && { body }),
      redirect: "manual",
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    return { ok: false, kind: "unreachable", error };
  }
  return readAnswer(route, res, config.parse);
}

/** The route's path with its parameters filled in, under the base URL, and the query. */
function requestUrl(base: string, route: AdminRoute, req: AnyRequest): URL {
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(req.params?.[name] ?? "")),
  );
  const url = new URL(path.slice(1), base);
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

function requestHeaders(token: string, req: AnyRequest, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (hasBody) headers["content-type"] = "application/json";
  for (const [name, value] of Object.entries(req.headers ?? {}))
    if (value !== undefined) headers[name] = value;
  return headers;
}

/** The answer as a value: a redirect is not followed, a text route's answer is text, any other is JSON. */
async function readAnswer(
  route: AdminRoute,
  res: Response,
  parse: (text: string) => unknown,
): Promise<AdminResult<unknown>> {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { ok: false, kind: "redirect", status: res.status, location: res.headers.get("location") };
  }
  const text = await res.text();
  let value: unknown = null;
  if (route.ok.contentType?.startsWith("text/") && res.ok) {
    value = text;
  } else {
    try {
      value = text ? parse(text) : null;
    } catch {
      return { ok: false, kind: "not-json", status: res.status, text };
    }
  }
  if (!res.ok) {
    const message = (value as { message?: unknown } | null)?.message;
    return {
      ok: false,
      kind: "status",
      status: res.status,
      body: value,
      message: typeof message === "string" ? message : text,
    };
  }
  return { ok: true, status: res.status, value };
}

function checkRequest(route: AdminRoute, request: unknown): AdminCheck {
  const req = request as Record<string, unknown>;
  const parts: [z.ZodType | undefined, unknown][] = [
    [route.params, req.params ?? {}],
    [route.query, req.query ?? {}],
    [route.headers, req.headers ?? {}],
    [route.body && !route.body.raw ? route.body.schema : undefined, req.body ?? {}],
  ];
  for (const [schema, value] of parts) {
    if (!schema) continue;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, field: String(issue?.path[0] ?? ""), message: issue?.message ?? "invalid" };
    }
  }
  return { ok: true };
}

/**
 * A typed client of the receiver's destinations API ({@link receiverRoutes}).
 *
 * @example
 * ```ts
 * const rx = createReceiverAdminClient({ baseUrl: "http://127.0.0.1:4000", token: "psk_…" });
 * const list = await rx.call("listDestinations", {});
 * if (list.ok) for (const d of list.value.data) console.log(d.name, d.state, d.depth);
 * ```
 */
export function createReceiverAdminClient(options: AdminClientOptions): RouteClient<typeof receiverRoutes> {
  return createRouteClient(receiverRoutes, options);
}
