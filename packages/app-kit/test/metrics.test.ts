import fc from "fast-check";
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createTally } from "../src/index.js";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The same two metrics as prom-client's own classes, fed the same events: what a tally must expose. */
type RegistryKind = "prometheus" | "openmetrics" | "default labels";

function newRegistry(kind: RegistryKind) {
  const registry = new Registry();
  if (kind === "openmetrics") {
    (registry as unknown as Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>).setContentType(
      Registry.OPENMETRICS_CONTENT_TYPE,
    );
  }
  if (kind === "default labels") registry.setDefaultLabels({ app: "t", zone: 'a"b' });
  return registry;
}

function reference(kind: RegistryKind = "prometheus") {
  const registry = newRegistry(kind);
  const counter = new Counter({
    name: "t_requests_total",
    help: "Requests by status.",
    labelNames: ["status"],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: "t_request_duration_seconds",
    help: "Latency by status.",
    labelNames: ["status"],
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    observe: (status: string | number, seconds: number) => {
      counter.inc({ status: String(status) });
      histogram.observe({ status: String(status) }, seconds);
    },
  };
}

function tally(kind: RegistryKind = "prometheus") {
  const registry = newRegistry(kind);
  const tally = createTally({
    registry,
    labelName: "status",
    counter: { name: "t_requests_total", help: "Requests by status." },
    histogram: { name: "t_request_duration_seconds", help: "Latency by status.", buckets: BUCKETS },
  });
  return { registry, tally };
}

const event = fc.tuple(
  fc.oneof(fc.constantFrom(200, 401, 413, 422, 503), fc.constantFrom("200", "401", 'x"y\\z')),
  fc.oneof(fc.constantFrom(...BUCKETS, 0, 2, 1e-9), fc.double({ min: 0, max: 3, noNaN: true })),
);

describe("createTally", () => {
  it("exposes exactly what prom-client's Counter and Histogram expose for the same events, as text and JSON", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 60 }),
        fc.constantFrom<RegistryKind>("prometheus", "openmetrics", "default labels"),
        async (events, kind) => {
          const theirs = reference(kind);
          const ours = tally(kind);
          for (const [status, seconds] of events) {
            theirs.observe(status, seconds);
            ours.tally.observe(status, seconds);
          }
          expect(await ours.registry.metrics()).toBe(await theirs.registry.metrics());
          expect(await ours.registry.getMetricsAsJSON()).toEqual(await theirs.registry.getMetricsAsJSON());
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts a number and its string as one label, and starts over when the registry is reset", async () => {
    const { registry, tally: t } = tally();
    t.observe(200, 0.005);
    t.observe("200", 0.05);
    t.observe(401, 0.5);
    const text = await registry.metrics();
    expect(text).toContain('t_requests_total{status="200"} 2');
    expect(text).toContain('t_request_duration_seconds_bucket{le="0.01",status="200"} 1');
    expect(text).toContain('t_request_duration_seconds_bucket{le="+Inf",status="401"} 1');
    expect(text).toContain('t_request_duration_seconds_sum{status="401"} 0.5');
    registry.resetMetrics();
    t.observe(200, 0.001);
    expect(await registry.metrics()).toContain('t_requests_total{status="200"} 1\n');
  });

  it("refuses a second metric of the same name in the registry, as prom-client does", () => {
    const { registry } = tally();
    expect(() => new Counter({ name: "t_requests_total", help: "again", registers: [registry] })).toThrow(
      /already been registered/,
    );
  });
});
