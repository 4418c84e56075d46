import {
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { type DeliveryOutcome, type Transport, withoutCredentials } from "@plant-store/core";
import { WEBHOOK_METHOD } from "@plant-store/spec";
import type { ClaimedDelivery } from "@plant-store/store";
import { SPAN_ATTRIBUTES as A, inSpan, MESSAGING_SYSTEM } from "../tracing.js";

/**
 * Starts an attempt's HTTP CLIENT span (`POST`), a child of the publish's span from the stored carrier (a new trace
 * when the publish was not traced), with the HTTP semantic conventions' request attributes: the method, `url.full`
 * with query values masked as everywhere else the sender shows a URL, the server's address and port, and
 * `http.request.resend_count` from the second attempt on. `undefined` without a tracer.
 *
 * @example
 * ```ts
 * const span = startAttemptSpan(tracer(), delivery);
 * ```
 */
export function startAttemptSpan(tracer: Tracer | undefined, delivery: ClaimedDelivery): Span | undefined {
  if (!tracer) return undefined;
  const { message, subscription } = delivery;
  const parent =
    message.traceContext === null ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, message.traceContext);
  // A URL that does not parse is `deliver`'s to refuse (`unusable_target`), never a reason for the span to fail.
  let url: URL | undefined;
  try {
    url = new URL(subscription.url);
  } catch {}
  return tracer.startSpan(
    WEBHOOK_METHOD,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [A.httpMethod]: WEBHOOK_METHOD,
        [A.urlFull]: withoutCredentials(subscription.url, URL_MASK),
        ...(url && {
          // URL keeps an IPv6 literal's brackets; the attribute is the address alone.
          [A.serverAddress]: url.hostname.replace(/^\[(.*)\]$/, "$1"),
          [A.serverPort]: Number(url.port) || (url.protocol === "https:" ? 443 : 80),
        }),
        [A.messagingSystem]: MESSAGING_SYSTEM,
        [A.messagingDestination]: message.eventType,
        [A.messagingMessageId]: message.id,
        ...(delivery.attempt > 1 && { [A.resendCount]: delivery.attempt - 1 }),
      },
    },
    parent,
  );
}

/** What `url.full` shows for a userinfo and each query value: the HTTP semantic conventions' `REDACTED`. */
const URL_MASK = "REDACTED";

/**
 * Runs one attempt (`send`, core's `deliver` through the transport it is handed) in its span's context, so an
 * instrumented HTTP client nests its own span under it, with a transport that sends the span's context; ends the
 * span on every path: with the outcome, or as an ERROR with `error.type` when `send` throws.
 *
 * @example
 * ```ts
 * const outcome = await traceAttempt(span, guard.transport, (transport) => deliver(target, message, { transport }));
 * ```
 */
export async function traceAttempt(
  span: Span,
  transport: Transport,
  send: (transport: Transport) => Promise<DeliveryOutcome>,
): Promise<DeliveryOutcome> {
  return inSpan(span, ROOT_CONTEXT, () => send(tracedTransport(transport, span)), {
    settle: (outcome) => recordOutcome(span, outcome),
  });
}

/**
 * A transport that first writes the attempt span's context into the request's headers (W3C `traceparent` and
 * `tracestate`, through the registered propagator), so the receiver continues the trace.
 */
function tracedTransport(transport: Transport, span: Span): Transport {
  const attempt = trace.setSpan(ROOT_CONTEXT, span);
  return (request) => {
    propagation.inject(attempt, request.headers);
    return transport(request);
  };
}

/**
 * An attempt's outcome on its span: the response status when one arrived; unless it delivered, status ERROR and
 * `error.type` — the status code for an answer that refused it, else why nothing was answered (`timeout`,
 * `network`, `blocked_address`, `unusable_target`).
 */
function recordOutcome(span: Span, outcome: DeliveryOutcome): void {
  if (outcome.status !== undefined) span.setAttribute(A.httpStatus, outcome.status);
  if (outcome.kind !== "delivered") {
    const type = outcome.status !== undefined ? String(outcome.status) : (outcome.reason ?? "_OTHER");
    span.setAttribute(A.errorType, type);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.error && { message: outcome.error }) });
  }
}
