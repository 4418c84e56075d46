import { countAndTime } from "@plant-store/app-kit";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The receiver's Prometheus metrics, in a registry of its own (several receivers can share a process). */
export interface ReceiverMetrics {
  registry: Registry;
  requests: Counter<"status">;
  latency: Histogram<"status">;
  duplicates: Counter;
  inboxSize: Gauge;
  /** Counts one webhook request and observes its latency (label children cached per status). */
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
  const requests = new Counter({
    name: "plant_store_receiver_requests_total",
    help: "Webhook requests by response status.",
    labelNames: ["status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "plant_store_receiver_request_duration_seconds",
    help: "Time from request to response, by status.",
    labelNames: ["status"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
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
  const observeRequest = countAndTime(requests, latency);
  return { registry, requests, latency, duplicates, inboxSize: size, observeRequest };
}
