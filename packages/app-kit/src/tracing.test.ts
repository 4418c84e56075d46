import { ROOT_CONTEXT, type Span, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { inSpan, SPAN_ATTRIBUTES } from "./tracing.js";

/** A span that keeps what is written on it, and whether (and after what) it ended. */
function recordingSpan() {
  const attributes: Record<string, unknown> = {};
  const statuses: { code: SpanStatusCode; message?: string }[] = [];
  let endedWith: Record<string, unknown> | null = null;
  const span = {
    setAttribute(key: string, value: unknown) {
      attributes[key] = value;
      return span;
    },
    setStatus(status: { code: SpanStatusCode; message?: string }) {
      statuses.push(status);
      return span;
    },
    end() {
      endedWith = { ...attributes };
    },
  };
  return { span: span as unknown as Span, attributes, statuses, ended: () => endedWith };
}

describe("inSpan", () => {
  it("returns the work's result and writes what settle says before the span ends", async () => {
    const r = recordingSpan();
    const result = await inSpan(r.span, ROOT_CONTEXT, async () => ({ n: 3 }), {
      settle: (value) => r.span.setAttribute("n", value.n),
    });
    expect(result).toEqual({ n: 3 });
    expect(r.ended()).toEqual({ n: 3 });
    expect(r.statuses).toEqual([]);
  });

  it("ends a span whose work throws as an ERROR with error.type, and throws the error on", async () => {
    const r = recordingSpan();
    const error = Object.assign(new Error("the secret input"), { code: "invalid_event" });
    await expect(inSpan(r.span, ROOT_CONTEXT, () => Promise.reject(error))).rejects.toBe(error);
    expect(r.ended()).toEqual({ [SPAN_ATTRIBUTES.errorType]: "invalid_event" });
    expect(r.statuses).toEqual([{ code: SpanStatusCode.ERROR }]);
  });

  it("describes the ERROR status with the error's message only when asked", async () => {
    const r = recordingSpan();
    const failing = () => Promise.reject(new TypeError("bad body"));
    await expect(inSpan(r.span, ROOT_CONTEXT, failing, { errorMessage: true })).rejects.toThrow("bad body");
    expect(r.statuses).toEqual([{ code: SpanStatusCode.ERROR, message: "bad body" }]);
    expect(r.attributes[SPAN_ATTRIBUTES.errorType]).toBe("TypeError");
  });

  it("marks the span as an ERROR when settle throws, and still ends it", async () => {
    const r = recordingSpan();
    const broken = new RangeError("settle");
    const run = inSpan(r.span, ROOT_CONTEXT, async () => 1, {
      settle: () => {
        throw broken;
      },
    });
    await expect(run).rejects.toBe(broken);
    expect(r.ended()).toEqual({ [SPAN_ATTRIBUTES.errorType]: "RangeError" });
  });
});
