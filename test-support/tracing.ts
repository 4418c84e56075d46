// Test helper shared by the tracing suites (not published): an OpenTelemetry SDK registered in the test process the
// way an application registers one (global tracer provider, context manager, W3C propagator), exporting to memory.
import { context, propagation, type TextMapPropagator, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A registered SDK: the spans ended so far, and how to take it down again. */
export interface TestTracing {
  /** Finished spans, in the order they ended (SimpleSpanProcessor exports each as it ends). */
  spans(): ReadableSpan[];
  /** The finished span named `name` (the only one: two fail the test). */
  one(name: string): ReadableSpan | undefined;
  reset(): void;
  /** Unregisters the provider, the context manager and the propagator: the API is a no-op again. */
  shutdown(): Promise<void>;
}

/**
 * Registers a BasicTracerProvider exporting to an InMemorySpanExporter, an AsyncLocalStorage context manager (the
 * one the Node SDK registers) and a propagator: the W3C trace context one unless `propagator` is given (the Node
 * SDK's default is trace context + baggage).
 *
 * @example
 * ```ts
 * const tracing = registerTracing();
 * afterAll(() => tracing.shutdown());
 * ```
 */
export function registerTracing(
  propagator: TextMapPropagator = new W3CTraceContextPropagator(),
): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const manager = new AsyncLocalStorageContextManager().enable();
  if (
    !trace.setGlobalTracerProvider(provider) ||
    !context.setGlobalContextManager(manager) ||
    !propagation.setGlobalPropagator(propagator)
  ) {
    throw new Error("An OpenTelemetry global was already registered in this process.");
  }
  return {
    spans: () => exporter.getFinishedSpans(),
    one(name) {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length > 1) throw new Error(`${found.length} spans named ${name}`);
      return found[0];
    },
    reset: () => exporter.reset(),
    async shutdown() {
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    },
  };
}

/**
 * A test's cleanup: every close in its own try, then `last` (taking the OpenTelemetry globals down) whatever failed
 * before it, so no failure leaves a provider, context manager or propagator registered for the next test; throws
 * what failed.
 *
 * @example
 * ```ts
 * afterEach(() => closeAll([() => sender?.close(), () => receiver?.close()], () => tracing?.shutdown()));
 * ```
 */
export async function closeAll(closers: readonly (() => unknown)[], last: () => unknown): Promise<void> {
  const errors: unknown[] = [];
  for (const close of [...closers, last]) {
    try {
      await close();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, "cleanup failed");
}
