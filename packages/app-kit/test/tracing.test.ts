import { SpanKind, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { registerTracing } from "../../../test-support/tracing.js";
import { appTracer, errorType } from "../src/index.js";

describe("appTracer", () => {
  it("answers no tracer until an SDK registers a provider, its tracer while it is, and none again after", async () => {
    const tracer = appTracer("@plant-store/test", "1.2.3");
    expect(tracer()).toBeUndefined();
    // The API's own answer without an SDK: a proxy that would allocate a non-recording span per call.
    expect(trace.getTracer("@plant-store/test").startSpan("x").isRecording()).toBe(false);

    const tracing = registerTracing();
    try {
      const registered = tracer();
      expect(registered).toBeDefined();
      expect(tracer()).toBe(registered); // fetched from the provider once
      registered?.startSpan("probe", { kind: SpanKind.INTERNAL }).end();
      const [span] = tracing.spans();
      expect(span).toMatchObject({
        name: "probe",
        instrumentationScope: { name: "@plant-store/test", version: "1.2.3" },
      });
    } finally {
      await tracing.shutdown();
    }
    expect(tracer()).toBeUndefined();

    const again = registerTracing();
    try {
      tracer()?.startSpan("second").end();
      expect(again.spans().map((span) => span.name)).toEqual(["second"]);
    } finally {
      await again.shutdown();
    }
  });
});

describe("errorType", () => {
  it("is the error's code, else its class's name, else _OTHER", () => {
    const coded = Object.assign(new Error("refused"), { code: "invalid_event" });
    expect(errorType(coded)).toBe("invalid_event");
    expect(errorType(new TypeError("x"))).toBe("TypeError");
    expect(errorType(Object.assign(new RangeError("x"), { code: 42 }))).toBe("RangeError");
    for (const thrown of [undefined, null, "text", 42, {}, { code: "", name: "" }])
      expect(errorType(thrown)).toBe("_OTHER");
  });
});
