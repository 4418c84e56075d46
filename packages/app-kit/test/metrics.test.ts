import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { countAndTime } from "../src/index.js";

describe("countAndTime", () => {
  it("counts and times per label value, as labels() on the metrics would", async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: "t_total",
      help: "t",
      labelNames: ["status"],
      registers: [registry],
    });
    const histogram = new Histogram({
      name: "t_seconds",
      help: "t",
      labelNames: ["status"],
      buckets: [0.01, 0.1],
      registers: [registry],
    });
    const observe = countAndTime(counter, histogram);
    observe(200, 0.005);
    observe(200, 0.05);
    observe("401", 0.5);
    observe(401, 0.001); // a number and its string are the same label

    const counts = (await counter.get()).values.map((v) => [v.labels.status, v.value]);
    expect(counts).toEqual([
      ["200", 2],
      ["401", 2],
    ]);
    const text = await registry.metrics();
    expect(text).toContain('t_seconds_bucket{le="0.01",status="200"} 1');
    expect(text).toContain('t_seconds_bucket{le="0.1",status="200"} 2');
    expect(text).toContain('t_seconds_sum{status="401"} 0.501');
    expect(text).toContain('t_seconds_count{status="401"} 2');
  });
});
