import { createTally, type TallyMetric } from "@plant-store/app-kit";
import { DELIVERY_STATES } from "@plant-store/core";
import type { Store } from "@plant-store/store";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

/** The sender's Prometheus metrics, in a registry of its own. */
export interface SenderMetrics {
  registry: Registry;
  /** `plant_store_sender_attempts_total{outcome}`. */
  attempts: TallyMetric;
  /** `plant_store_sender_attempt_duration_seconds{outcome}`. */
  latency: TallyMetric;
  /** Counts one attempt and observes its latency. */
  observeAttempt(outcome: string, seconds: number): void;
}

/**
 * Attempts by outcome, attempt latency, and (collected on scrape) queue depth by state and oldest due age.
 *
 * @example
 * ```ts
 * const metrics = createMetrics(store);
 * metrics.observeAttempt("delivered", 0.012);
 * ```
 */
export function createMetrics(store: Store): SenderMetrics {
  const registry = new Registry();
  // Node's process metrics (CPU, memory, heap, event-loop lag, GC, handles), prom-client's defaults.
  collectDefaultMetrics({ register: registry });
  const attempts = createTally({
    registry,
    labelName: "outcome",
    counter: {
      name: "plant_store_sender_attempts_total",
      help: "Delivery attempts by outcome (delivered, retry, gone, failed, blocked).",
    },
    histogram: {
      name: "plant_store_sender_attempt_duration_seconds",
      help: "Time from sending an attempt to its outcome.",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15],
    },
  });
  let stats: Promise<Awaited<ReturnType<Store["outbox"]["stats"]>>> | null = null;
  // One stats query per scrape serves both gauges.
  const current = () => {
    stats ??= store.outbox.stats().finally(() => setTimeout(() => (stats = null), 100).unref());
    return stats;
  };
  new Gauge({
    name: "plant_store_sender_deliveries",
    help: "Deliveries in the outbox by state.",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const s = await current();
      for (const state of DELIVERY_STATES) this.set({ state }, s[state]);
    },
  });
  new Gauge({
    name: "plant_store_sender_oldest_due_age_seconds",
    help: "How long the oldest due delivery has been waiting.",
    registers: [registry],
    async collect() {
      this.set((await current()).oldestDueAgeMs / 1000);
    },
  });
  return {
    registry,
    attempts: attempts.counter,
    latency: attempts.histogram,
    observeAttempt: (outcome, seconds) => attempts.observe(outcome, seconds),
  };
}
