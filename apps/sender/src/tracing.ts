import { createRequire } from "node:module";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { SPAN_ATTRIBUTES as A, appTracer, errorType, MESSAGING_SYSTEM } from "@plant-store/app-kit";
import { type DeliveryOutcome, type Transport, withoutCredentials } from "@plant-store/core";
import { WEBHOOK_METHOD } from "@plant-store/spec";
import { type ClaimedDelivery, isStorableTraceContext, type TraceCarrier } from "@plant-store/store";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The sender's tracer: `undefined` while no OpenTelemetry SDK is registered (then nothing is traced and no trace
 * header is sent). One per admin API and per worker.
 *
 * @example
 * ```ts
 * const tracer = senderTracer();
 * await tracePublish(tracer(), "newPlant", (traceContext) => store.outbox.publish(event, { traceContext }));
 * ```
 */
export function senderTracer(): () => Tracer | undefined {
  return appTracer("@plant-store/sender", version);
}

/**
 * Runs a publish inside a `publish <type>` PRODUCER span (a child of the active context: an instrumented admin
 * request's span, when there is one; active while `run` writes, so an instrumented database client nests under it)
 * and hands `run` that span's context as a carrier to store with the message; every attempt continues from it.
 * Without a tracer `run` gets `undefined` and nothing else happens. `eventType` is `undefined` for a type the catalog
 * does not hold: the span is then just `publish` (span names stay few).
 *
 * @example
 * ```ts
 * await tracePublish(tracer(), "newPlant", (traceContext) => store.outbox.publish(body, { traceContext }));
 * ```
 */
export async function tracePublish<T extends { messageId: string }>(
  tracer: Tracer | undefined,
  eventType: string | undefined,
  run: (traceContext: TraceCarrier | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return run(undefined);
  const parent = context.active();
  const span = tracer.startSpan(
    eventType === undefined ? "publish" : `publish ${eventType}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [A.messagingSystem]: MESSAGING_SYSTEM,
        [A.messagingOperationName]: "publish",
        [A.messagingOperationType]: "send",
        ...(eventType !== undefined && { [A.messagingDestination]: eventType }),
      },
    },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), run, undefined, spanCarrier(span));
    span.setAttribute(A.messagingMessageId, result.messageId);
    return result;
  } catch (error) {
    // The store's error code (`invalid_event`, `idempotency_conflict`, …): a few values, never the input.
    span.setAttribute(A.errorType, errorType(error));
    const { message } = (error ?? {}) as { message?: unknown };
    span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof message === "string" && { message }) });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * The span's own context as a carrier the store takes: only what the propagator writes for the span (never the
 * request's baggage), and only its `traceparent` when a long `tracestate` inherited from the caller would make the
 * store refuse it — tracing never refuses an event. `undefined` when even that would not do.
 */
function spanCarrier(span: Span): TraceCarrier | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  if (isStorableTraceContext(carrier)) return carrier;
  const { traceparent } = carrier;
  const reduced = traceparent === undefined ? undefined : { traceparent };
  return isStorableTraceContext(reduced) ? reduced : undefined;
}
