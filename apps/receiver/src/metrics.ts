import { createTally, type TallyMetric, type WorkerMetrics } from "@plant-store/app-kit";
import type { ClaimedDelivery, DestinationStats } from "@plant-store/store";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

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
  /** What the forwarding worker reports: each attempt, by destination. */
  forwards: WorkerMetrics;
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
export function createMetrics(
  inboxSize: () => Promise<number>,
  destinationStats: () => Promise<DestinationStats[]> = async () => [],
): ReceiverMetrics {
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
  const forwards = forwardMetrics(registry, destinationStats);
  return {
    registry,
    forwards,
    requests: requests.counter,
    latency: requests.histogram,
    duplicates,
    inboxSize: size,
    observeRequest: (status, seconds) => requests.observe(status, seconds),
  };
}

/** Seconds from `ms` to now. */
const ageOf = (ms: number) => Math.max(0, (Date.now() - ms) / 1000);

/**
 * Per-destination metrics: attempts by outcome, received→accepted latency (from the event's arrival to the 2xx that
 * ends its forward), queue depth and the age of the oldest unfinished forward (both read from the store on scrape).
 */
function forwardMetrics(registry: Registry, stats: () => Promise<DestinationStats[]>): WorkerMetrics {
  const attempts = new Counter({
    name: "plant_store_receiver_forward_attempts_total",
    help: "Forward attempts by destination and outcome.",
    labelNames: ["destination", "outcome"],
    registers: [registry],
  });
  const accepted = new Histogram({
    name: "plant_store_receiver_forward_latency_seconds",
    help: "Time from an event's arrival to its destination accepting it (2xx), by destination.",
    labelNames: ["destination"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [registry],
  });
  const read = async () => stats().catch(() => [] as DestinationStats[]);
  new Gauge({
    name: "plant_store_receiver_forward_queue_depth",
    help: "Forwards pending or in flight, by destination.",
    labelNames: ["destination"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await read()) this.set({ destination: row.destinationId }, row.depth);
    },
  });
  new Gauge({
    name: "plant_store_receiver_forward_oldest_pending_seconds",
    help: "Age of the oldest unfinished forward (lag), by destination; 0 when none.",
    labelNames: ["destination"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await read()) {
        this.set(
          { destination: row.destinationId },
          row.oldestPendingAt ? ageOf(row.oldestPendingAt.getTime()) : 0,
        );
      }
    },
  });
  return {
    observeAttempt(outcome: string, _seconds: number, delivery: ClaimedDelivery) {
      const destination = delivery.subscription.id;
      attempts.inc({ destination, outcome });
      if (outcome === "delivered")
        accepted.observe({ destination }, ageOf(delivery.message.createdAt.getTime()));
    },
  };
}
