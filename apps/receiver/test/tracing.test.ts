import { request } from "node:http";
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test-support/processes.js";
import { closeAll, registerTracing, type TestTracing } from "../../../test-support/tracing.js";
import { createReceiver, type Receiver } from "../src/index.js";
import { post, SECRET, signedHeaders, TOKEN } from "./support.js";

let tracing: TestTracing | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await closeAll([() => receiver?.close()], () => tracing?.shutdown());
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
    const writes: (Span | undefined)[] = [];
    const inbox = receiver.store.inbox;
    const record = inbox.record.bind(inbox);
    inbox.record = (input) => {
      writes.push(trace.getActiveSpan());
      return record(input);
    };
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
    // The inbox wrote inside each commit's span: an instrumented database client's spans would be its children.
    expect(writes.map((span) => span?.spanContext().spanId)).toEqual(
      commits.map((span) => span.spanContext().spanId),
    );
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
    // The socket's peer, not a client address: that only a forwarding header could name.
    expect(server!.attributes).toMatchObject({
      "http.request.method": "POST",
      "network.peer.address": "127.0.0.1",
      "network.peer.port": expect.any(Number),
    });
    expect(server!.attributes).not.toHaveProperty("client.address");
    expect(server!.attributes).not.toHaveProperty("http.request.method_original");
    // A refusal is the client's error: the server span is not an error (HTTP semantic conventions).
    expect(server).toMatchObject({
      status: { code: SpanStatusCode.UNSET },
      attributes: { "http.response.status_code": 401 },
    });
    expect(spans.spans().map((span) => span.name)).toEqual(["POST /plant/webhook"]);
  });
});

describe("receiver tracing of a method the conventions do not know", () => {
  it("records it as _OTHER with the method sent, in a span named HTTP <route>", async () => {
    tracing = registerTracing();
    receiver = await createReceiver({ tokens: [TOKEN], secrets: [SECRET] });
    const { port } = new URL(await receiver.listen());
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: "PURGE", path: "/plant/webhook" }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      });
      req.on("error", reject);
      req.end();
    });
    const spans = tracing;
    const [server] = await until(() => {
      const found = spans.spans().filter((span) => span.kind === SpanKind.SERVER);
      return found.length === 1 && found;
    });
    expect(server).toMatchObject({
      name: "HTTP /plant/webhook",
      attributes: {
        "http.request.method": "_OTHER",
        "http.request.method_original": "PURGE",
        "http.route": "/plant/webhook",
        "http.response.status_code": status,
      },
    });
  });
});
