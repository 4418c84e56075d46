import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { registerTracing, type TestTracing } from "../../../test-support/tracing.js";
import { createReceiver, type Receiver } from "../src/index.js";
import { post, SECRET, signedHeaders, TOKEN } from "./support.js";

let tracing: TestTracing | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await tracing?.shutdown();
  receiver = tracing = undefined;
});

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT}-01`;

describe("receiver tracing", () => {
  it("continues the request's trace in a SERVER span whose child records the commit, once per new event", async () => {
    tracing = registerTracing();
    receiver = await createReceiver({ tokens: [TOKEN], secrets: [SECRET] });
    const url = await receiver.listen();
    const body = '{"id":1,"name":"Fern"}';
    const headers = { ...(await signedHeaders(body, { id: "msg_trace1" })), traceparent: TRACEPARENT };
    expect((await post(url, body, headers)).status).toBe(200);
    expect((await post(url, body, headers)).status).toBe(200); // a redelivery: answered, not stored twice

    // The server span ends after its answer is written: wait for both requests' spans.
    const spans = tracing;
    const servers = await until(() => {
      const found = spans.spans().filter((span) => span.name === "POST /plant/webhook");
      return found.length === 2 && found;
    });
    const commits = spans.spans().filter((span) => span.name === "process newPlant");
    expect(commits).toHaveLength(2);
    for (const [i, server] of servers.entries()) {
      expect(server.spanContext().traceId).toBe(TRACE_ID);
      expect(server.parentSpanContext).toMatchObject({ spanId: PARENT, isRemote: true });
      expect(server).toMatchObject({
        kind: SpanKind.SERVER,
        attributes: { "http.route": "/plant/webhook", "http.response.status_code": 200 },
      });
      const commit = commits.find((span) => span.parentSpanContext?.spanId === server.spanContext().spanId);
      expect(commit).toMatchObject({
        kind: SpanKind.CONSUMER,
        attributes: { "messaging.message.id": "msg_trace1", "plant_store.inbox.duplicate": i === 1 },
      });
    }
  });

  it("starts a trace for a request without traceparent and records no commit for a refused one", async () => {
    tracing = registerTracing();
    receiver = await createReceiver({ tokens: [TOKEN], secrets: [SECRET] });
    const url = await receiver.listen();
    const body = '{"id":2,"name":"Moss"}';
    expect((await post(url, body, await signedHeaders(body, { token: "psk_wrong" }))).status).toBe(401);
    const spans = tracing;
    const [server] = await until(() => {
      const found = spans.spans().filter((span) => span.name === "POST /plant/webhook");
      return found.length === 1 && found;
    });
    expect(server!.parentSpanContext).toBeUndefined();
    // A refusal is the client's error: the server span is not an error (HTTP semantic conventions).
    expect(server).toMatchObject({
      status: { code: SpanStatusCode.UNSET },
      attributes: { "http.response.status_code": 401 },
    });
    expect(spans.spans().map((span) => span.name)).toEqual(["POST /plant/webhook"]);
  });
});

async function until<T>(check: () => T | false, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
