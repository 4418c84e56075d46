import { createTally, type TallyMetric } from "@plant-store/app-kit";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";

/** The receiver's Prometheus metrics, in a registry of its own (several receivers can share a process). */
export interface ReceiverMetrics {
  registry: Registry;
  /** `plant_store_receiver_requests_total{status}`. */
  requests: TallyMetric;
  /** `plant_store_receiver_request_duration_seconds{status}`. */
  latency: TallyMetric;
  duplicates: Counter;
  inboxSize: Gauge;
  /** Counts one webhook request and observes its latency. */
  observeRequest(status: number, seconds: number): void;
}

/**
 * Creates the metrics: requests by status, latency histogram, duplicates, inbox size (collected on scrape).
 *
 * @example
 * ```ts
 * const metrics = createMetrics(() => store.inbox.count());
 * res.end(await metrics.registry.metrics());
 * ```
 */
export function createMetrics(inboxSize: () => Promise<number>): ReceiverMetrics {
  const registry = new Registry();
  // Node's process metrics (CPU, memory, heap, event-loop lag, GC, handles), prom-client's defaults.
  collectDefaultMetrics({ register: registry });
  const requests = createTally({
    registry,
    labelName: "status",
    counter: { name: "plant_store_receiver_requests_total", help: "Webhook requests by response status." },
    histogram: {
      name: "plant_store_receiver_request_duration_seconds",
      help: "Time from request to response, by status.",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    },
  });
  const duplicates = new Counter({
    name: "plant_store_receiver_duplicates_total",
    help: "Deliveries answered 200 without a second effect because their webhook-id was already stored.",
    registers: [registry],
  });
  const size = new Gauge({
    name: "plant_store_receiver_inbox_events",
    help: "Events stored in the inbox.",
    registers: [registry],
    async collect() {
      this.set(await inboxSize());
    },
  });
  return {
    registry,
    requests: requests.counter,
    latency: requests.histogram,
    duplicates,
    inboxSize: size,
    observeRequest: (status, seconds) => requests.observe(status, seconds),
  };
}
