import type { IncomingMessage } from "node:http";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { SPAN_ATTRIBUTES as A, inSpan, MESSAGING_SYSTEM, packageTracer } from "@plant-store/app-kit";
import type { WebhookResponse } from "@plant-store/core";

/**
 * The receiver's tracer: `undefined` while no OpenTelemetry SDK is registered, and then the webhook path does
 * nothing more for tracing than ask.
 *
 * @example
 * ```ts
 * const tracer = receiverTracer();
 * const traced = tracer(); // checked once per request
 * if (traced) startServerSpan(traced, req, "/plant/webhook");
 * ```
 */
export function receiverTracer(): () => Tracer | undefined {
  return packageTracer(new URL("../package.json", import.meta.url));
}

/** A webhook request's SERVER span and the context its pipeline runs in (the commit's span is its child). */
export interface ServerSpan {
  span: Span;
  context: Context;
}

/** The methods the HTTP semantic conventions name (RFC 9110 and PATCH); any other is `_OTHER`. */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/**
 * Starts a webhook request's SERVER span (`POST /plant/webhook`: method and route template), continuing the trace
 * of the request's W3C `traceparent`/`tracestate` (the sender's attempt), with the HTTP semantic conventions'
 * server attributes. A method the conventions do not know is `_OTHER` (the span `HTTP <route>`), the method as sent
 * kept in `http.request.method_original`. The peer is `network.peer.*`: `client.address` would be the original
 * client's, which only a forwarding header names, and none is trusted here.
 *
 * @example
 * ```ts
 * const traced = tracer();
 * if (traced) startServerSpan(traced, req, "/plant/webhook");
 * ```
 */
export function startServerSpan(tracer: Tracer, req: IncomingMessage, route: string): ServerSpan {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const sent = req.method ?? "POST";
  const known = KNOWN_METHODS.has(sent);
  const userAgent = req.headers["user-agent"];
  const { remoteAddress, remotePort } = req.socket;
  const span = tracer.startSpan(
    `${known ? sent : "HTTP"} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [A.httpMethod]: known ? sent : "_OTHER",
        ...(!known && { [A.httpMethodOriginal]: sent }),
        [A.httpRoute]: route,
        [A.urlPath]: route,
        [A.urlScheme]: "encrypted" in req.socket ? "https" : "http",
        ...(userAgent !== undefined && { [A.userAgent]: userAgent }),
        ...(remoteAddress !== undefined && { [A.networkPeerAddress]: remoteAddress }),
        ...(remotePort !== undefined && { [A.networkPeerPort]: remotePort }),
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Ends a webhook request's span with the status answered (ERROR and `error.type` for a 5xx, as for any server
 * span), or as an ERROR `request_aborted` when the client left before sending the whole body.
 *
 * @example
 * ```ts
 * endServerSpan(server.span, await handleNodeRequest(handler, req, res));
 * ```
 */
export function endServerSpan(span: Span, response: WebhookResponse | null): void {
  if (!response) {
    span.setAttribute(A.errorType, "request_aborted");
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setAttribute(A.httpStatus, response.status);
    if (response.status >= 500) {
      span.setAttribute(A.errorType, String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/**
 * Runs the inbox commit of one event inside a `process <type>` span (messaging `process`, a child of the active
 * context: the request's span; active itself while `commit` runs), ended once the commit is durable — or failed,
 * with status ERROR.
 *
 * @example
 * ```ts
 * await traceCommit(traced, { id, type, size }, () => store.inbox.record(input));
 * ```
 */
export async function traceCommit<T extends { duplicate: boolean }>(
  tracer: Tracer,
  event: { id: string; type: string; size: number },
  commit: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(
    `process ${event.type}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        [A.messagingSystem]: MESSAGING_SYSTEM,
        [A.messagingOperationName]: "process",
        [A.messagingOperationType]: "process",
        [A.messagingDestination]: event.type,
        [A.messagingMessageId]: event.id,
        [A.messagingBodySize]: event.size,
      },
    },
    context.active(),
  );
  // Active while the inbox writes, so an instrumented database client nests its spans under the commit.
  return inSpan(span, context.active(), commit, {
    settle: (result) => span.setAttribute(A.inboxDuplicate, result.duplicate),
  });
}
