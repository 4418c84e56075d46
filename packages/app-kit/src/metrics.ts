import type { Registry } from "prom-client";

/** Options of {@link createTally}. */
export interface TallyOptions {
  /** The registry both metrics are exposed in. */
  registry: Registry;
  /** The one label both metrics carry, e.g. `status`. */
  labelName: string;
  /** The counter: events by label. */
  counter: { name: string; help: string };
  /** The histogram: the events' durations in seconds by label. */
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/** One value of a metric as prom-client's registry reads it (`MetricValue`, `metricName` for a histogram's series). */
interface TallyValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

/** What prom-client's `Registry` reads of a metric (`registerMetric`, `metrics()`, `getMetricsAsJSON()`). */
export interface TallyMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: string; values: TallyValue[]; aggregator: "sum" }>;
  reset(): void;
}

/** Events counted and timed by one label (requests by status, attempts by outcome). */
export interface Tally {
  /** Counts one event under `label` and observes its duration; `200` and `"200"` are the same label. */
  observe(label: string | number, seconds: number): void;
  /** `<counter name>{<label>="…"}`, exposed in the registry. */
  readonly counter: TallyMetric;
  /** `<histogram name>_bucket{le="…",<label>="…"}`, `_sum`, `_count`, exposed in the registry. */
  readonly histogram: TallyMetric;
}

interface Series {
  label: string;
  count: number;
  sum: number;
  /** Events per bucket (not cumulative); an event above the last bound is only in `count`. */
  buckets: number[];
}

/** The series of one tally, shared by its counter and its histogram. */
interface TallyState {
  readonly labelName: string;
  readonly bounds: readonly number[];
  /** Series by the value `observe` was given (`200`), beside `byLabel` (`"200"`), so a hit needs no `String()`. */
  readonly byValue: Map<string | number, Series>;
  readonly byLabel: Map<string, Series>;
}

/**
 * A counter and a histogram of one event (a webhook request, a delivery attempt) by one label, kept in plain
 * numbers and exposed in a prom-client registry: the text and JSON a scrape reads are exactly those of a prom-client
 * `Counter` and `Histogram` given the same events (tested). One event costs a map lookup, two additions and a bucket
 * search, where prom-client's label children hash the labels on every event.
 *
 * @example
 * ```ts
 * const tally = createTally({ registry, labelName: "status",
 *   counter: { name: "requests_total", help: "Requests by status." },
 *   histogram: { name: "request_duration_seconds", help: "Latency by status.", buckets: [0.001, 0.01, 0.1] } });
 * tally.observe(200, 0.0021); // requests_total{status="200"} + 1, latency observes 2.1 ms
 * ```
 */
export function createTally(options: TallyOptions): Tally {
  const state: TallyState = {
    labelName: options.labelName,
    bounds: [...options.histogram.buckets].sort((a, b) => a - b),
    byValue: new Map(),
    byLabel: new Map(),
  };
  const counter = counterMetric(state, options.counter);
  const histogram = histogramMetric(state, options.histogram);
  // prom-client's Registry takes any object with a name and `get()`; its types name only its own classes.
  options.registry.registerMetric(counter as unknown as Parameters<Registry["registerMetric"]>[0]);
  options.registry.registerMetric(histogram as unknown as Parameters<Registry["registerMetric"]>[0]);
  return { counter, histogram, observe: (value, seconds) => observe(state, value, seconds) };
}

function observe(state: TallyState, value: string | number, seconds: number): void {
  if (!Number.isFinite(seconds)) return; // prom-client throws; a NaN must not poison the sum for good
  const series = state.byValue.get(value) ?? seriesOf(state, value);
  series.count++;
  series.sum += seconds;
  const { bounds } = state;
  for (let i = 0; i < bounds.length; i++) {
    if (seconds <= (bounds[i] as number)) {
      series.buckets[i] = (series.buckets[i] as number) + 1;
      break;
    }
  }
}

function seriesOf(state: TallyState, value: string | number): Series {
  const label = String(value);
  let series = state.byLabel.get(label);
  if (!series) {
    series = { label, count: 0, sum: 0, buckets: state.bounds.map(() => 0) };
    state.byLabel.set(label, series);
  }
  state.byValue.set(value, series);
  return series;
}

/** Both metrics share their series: resetting one (the registry resets all) resets both. */
function resetter(state: TallyState): () => void {
  return () => {
    state.byValue.clear();
    state.byLabel.clear();
  };
}

function counterMetric(state: TallyState, options: TallyOptions["counter"]): TallyMetric {
  const counter: { -readonly [key in keyof TallyMetric]: TallyMetric[key] } = {
    name: options.name,
    help: options.help,
    type: "counter",
    aggregator: "sum",
    // The name as the registry left it: an OpenMetrics registry renames counters (without `_total`) before reading.
    get: async () => ({
      name: counter.name,
      help: options.help,
      type: "counter",
      aggregator: "sum",
      values: [...state.byLabel.values()].map((series) => ({
        value: series.count,
        labels: { [state.labelName]: series.label },
      })),
    }),
    reset: resetter(state),
  };
  return counter;
}

function histogramMetric(state: TallyState, options: TallyOptions["histogram"]): TallyMetric {
  const data = (values: TallyValue[]) => ({
    name: options.name,
    help: options.help,
    type: "histogram",
    values,
    aggregator: "sum" as const,
  });
  return {
    name: options.name,
    help: options.help,
    type: "histogram" as const,
    aggregator: "sum" as const,
    // The registry's text format reads this one (labels and shared labels apart) ...
    getForPromString: async () => data(histogramValues(state, options.name)),
    // ... its JSON reads `get`, where they are one object, as prom-client's Histogram gives them.
    get: async () =>
      data(
        histogramValues(state, options.name).map(({ sharedLabels, labels, ...value }) => ({
          ...value,
          labels: { ...labels, ...sharedLabels },
        })),
      ),
    reset: resetter(state),
  } as TallyMetric;
}

/** prom-client's order: each series' cumulative buckets, +Inf, sum, count; the series' label is "shared", after `le`. */
function histogramValues(state: TallyState, name: string): TallyValue[] {
  const values: TallyValue[] = [];
  for (const series of state.byLabel.values()) {
    const shared = { [state.labelName]: series.label };
    let cumulative = 0;
    for (let i = 0; i < state.bounds.length; i++) {
      cumulative += series.buckets[i] as number;
      values.push({
        labels: { le: state.bounds[i] as number },
        sharedLabels: shared,
        value: cumulative,
        metricName: `${name}_bucket`,
        exemplar: null,
      });
    }
    values.push(
      {
        labels: { le: "+Inf" },
        sharedLabels: shared,
        value: series.count,
        metricName: `${name}_bucket`,
        exemplar: null,
      },
      { labels: {}, sharedLabels: shared, value: series.sum, metricName: `${name}_sum` },
      { labels: {}, sharedLabels: shared, value: series.count, metricName: `${name}_count` },
    );
  }
  return values;
}
