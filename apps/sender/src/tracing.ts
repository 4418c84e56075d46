import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { SPAN_ATTRIBUTES as A, inSpan, MESSAGING_SYSTEM, packageTracer } from "@plant-store/app-kit";
import { isStorableTraceContext, type TraceCarrier } from "@plant-store/store";

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
  return packageTracer(new URL("../package.json", import.meta.url));
}

/**
 * Runs a publish inside a `publish <type>` PRODUCER span (a child of the active context: an instrumented admin
 * request's span, when there is one; active while `run` writes, so an instrumented database client nests under it)
 * and hands `run` that span's context as a carrier to store with the message; every attempt continues from it.
 * Without a tracer `run` gets `undefined` and nothing else happens. `eventType` is `undefined` for a type the catalog
 * does not hold, or for a batch: the span is then just `publish` (span names stay few).
 *
 * @example
 * ```ts
 * await tracePublish(tracer(), "newPlant", (traceContext) => store.outbox.publish(body, { traceContext }));
 * ```
 */
export async function tracePublish<T extends object>(
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
  return inSpan(span, parent, () => run(spanCarrier(span)), {
    settle: (result) => {
      // A batch's span stands for several messages: it names none.
      const { messageId } = result as { messageId?: unknown };
      if (typeof messageId === "string") span.setAttribute(A.messagingMessageId, messageId);
    },
    // `error.type` is the store's error code (`invalid_event`, `idempotency_conflict`, …): a few values, never the
    // input; the status says its message.
    errorMessage: true,
  });
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
