/** What {@link countAndTime} needs of a prom-client Counter with one label. */
export interface LabelledCounter {
  labels(value: string): { inc(): void };
}

/** What {@link countAndTime} needs of a prom-client Histogram with one label. */
export interface LabelledHistogram {
  labels(value: string): { observe(value: number): void };
}

/**
 * Counts one event and observes its duration under one label value, with the label's prom-client children looked
 * up once per value: looking a child up by label object hashes the labels on every call, and a hot path (one call
 * per request or delivery) has only a handful of values (statuses, outcomes).
 *
 * @example
 * ```ts
 * const observe = countAndTime(requests, latency);
 * observe(200, 0.0021); // requests{status="200"} + 1, latency{status="200"} observes 2.1 ms
 * ```
 */
export function countAndTime(
  counter: LabelledCounter,
  histogram: LabelledHistogram,
): (value: string | number, seconds: number) => void {
  const children = new Map<string | number, { count: { inc(): void }; time: { observe(v: number): void } }>();
  return (value, seconds) => {
    let child = children.get(value);
    if (!child) {
      const label = String(value);
      child = { count: counter.labels(label), time: histogram.labels(label) };
      children.set(value, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  };
}
