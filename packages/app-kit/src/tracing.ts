import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import {
  type Context,
  context,
  ProxyTracerProvider,
  type Span,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";

/**
 * Span attribute names, from the OpenTelemetry semantic conventions for HTTP (stable) and messaging: written once
 * here so both apps spell them the same way.
 */
export const SPAN_ATTRIBUTES = {
  httpMethod: "http.request.method",
  httpMethodOriginal: "http.request.method_original",
  httpStatus: "http.response.status_code",
  httpRoute: "http.route",
  resendCount: "http.request.resend_count",
  errorType: "error.type",
  urlFull: "url.full",
  urlPath: "url.path",
  urlScheme: "url.scheme",
  serverAddress: "server.address",
  serverPort: "server.port",
  networkPeerAddress: "network.peer.address",
  networkPeerPort: "network.peer.port",
  userAgent: "user_agent.original",
  messagingSystem: "messaging.system",
  messagingOperationName: "messaging.operation.name",
  messagingOperationType: "messaging.operation.type",
  messagingDestination: "messaging.destination.name",
  messagingMessageId: "messaging.message.id",
  messagingBodySize: "messaging.message.body.size",
  /** Ours: whether the inbox already held the event (a redelivery, answered 200 without a second row). */
  inboxDuplicate: "plant_store.inbox.duplicate",
} as const;

/** `messaging.system` of every span the apps write: no well-known value fits a webhook outbox. */
export const MESSAGING_SYSTEM = "plant_store";

/**
 * A span's `error.type` for a thrown error: its `code` when it has one (a store's `invalid_event`, Node's
 * `ECONNRESET`: a few values, never the input), else its class's `name`, else `_OTHER` (the conventions' fallback).
 *
 * @example
 * ```ts
 * span.setAttribute(SPAN_ATTRIBUTES.errorType, errorType(error));
 * ```
 */
export function errorType(error: unknown): string {
  const { code, name } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    name?: unknown;
  };
  if (typeof code === "string" && code !== "") return code;
  if (typeof name === "string" && name !== "") return name;
  return "_OTHER";
}

/** The API's no-op provider: what the API's proxy provider delegates to while no SDK has registered one. */
const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * The app's tracer, looked up on every call but fetched from the provider only when the registered provider changes:
 * `undefined` while no OpenTelemetry SDK is registered, so a hot path asks `tracer()` and does nothing else — no
 * span object, no attributes, no header parsing — when tracing is off. (The API's own `trace.getTracer` answers a
 * proxy whose spans are allocated even when they record nothing.)
 *
 * @example
 * ```ts
 * const tracer = appTracer("@plant-store/receiver", version);
 * const span = tracer()?.startSpan("POST /plant/webhook", { kind: SpanKind.SERVER });
 * ```
 */
export function appTracer(name: string, version: string): () => Tracer | undefined {
  let provider: TracerProvider = NOOP_PROVIDER;
  let tracer: Tracer | undefined;
  return () => {
    const global = trace.getTracerProvider();
    const current = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
    if (current !== provider) {
      provider = current;
      tracer = current === NOOP_PROVIDER ? undefined : current.getTracer(name, version);
    }
    return tracer;
  };
}

/**
 * The tracer of the package whose `package.json` is at `packageJson`, named and versioned as that file says
 * ({@link appTracer}): one line for each app, read once when the app builds its tracer.
 *
 * @example
 * ```ts
 * const tracer = packageTracer(new URL("../package.json", import.meta.url));
 * ```
 */
export function packageTracer(packageJson: URL): () => Tracer | undefined {
  const { name, version } = createRequire(packageJson)(fileURLToPath(packageJson)) as {
    name: string;
    version: string;
  };
  return appTracer(name, version);
}

/** What {@link inSpan} does besides running the work: the result's attributes; the error's message as the status's. */
export interface InSpanOptions<T> {
  /** Writes what the result says on the span, before it ends (a throw here is the span's error too). */
  settle?: (result: T) => void;
  /** On a throw, the error's `message` (when a string) is the ERROR status's description too. */
  errorMessage?: boolean;
}

/**
 * Runs `work` with `span` active (under `parent`), so instrumented clients nest their spans under it, and ends the
 * span on every path: with what `settle` writes, or, when `work` throws, as an ERROR with `error.type`
 * ({@link errorType}), the error thrown on.
 *
 * @example
 * ```ts
 * const result = await inSpan(span, context.active(), () => commit(), { settle: (r) => span.setAttribute("x", r.n) });
 * ```
 */
export async function inSpan<T>(
  span: Span,
  parent: Context,
  work: () => Promise<T>,
  options: InSpanOptions<T> = {},
): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(parent, span), work);
    options.settle?.(result);
    return result;
  } catch (error) {
    span.setAttribute(SPAN_ATTRIBUTES.errorType, errorType(error));
    const { message } = (error ?? {}) as { message?: unknown };
    const described = options.errorMessage === true && typeof message === "string";
    span.setStatus({ code: SpanStatusCode.ERROR, ...(described && { message }) });
    throw error;
  } finally {
    span.end();
  }
}
