import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { createReceiver, type Receiver } from "@plant-store/receiver";
import { afterEach, describe, expect, it } from "vitest";
import { registerTracing, type TestTracing } from "../../../test-support/tracing.js";
import { createSender, type Sender } from "../src/index.js";
import { ADMIN, api, SECRET, type Sink, sink, TOKEN, until } from "./support.js";

// Sender and receiver run in this process, so the SDK registered here sees the spans of both: one trace from the
// publish to the receiver's commit, carried between them only by the stored context and the request's headers.
let tracing: TestTracing | undefined;
let sender: Sender | undefined;
let receiver: Receiver | undefined;
let target: Sink | undefined;
afterEach(async () => {
  await sender?.close();
  await receiver?.close();
  await target?.close();
  await tracing?.shutdown();
  sender = receiver = target = tracing = undefined;
});

/** A sender delivering to `url`, retrying after 10 ms; resolves with its admin URL. */
async function startSender(url: string): Promise<string> {
  sender = await createSender({
    adminTokens: [ADMIN],
    allowNetworks: ["127.0.0.0/8"],
    schedule: [0, 10, 10, 10],
  });
  await sender.store.subscriptions.create({ url, token: TOKEN, secrets: [SECRET] });
  return sender.listen();
}

describe("tracing with an OpenTelemetry SDK registered", () => {
  it("links publish -> attempt -> receive -> commit in one trace, with HTTP and messaging attributes", async () => {
    tracing = registerTracing();
    receiver = await createReceiver({ tokens: [TOKEN], secrets: [SECRET] });
    const receiverUrl = await receiver.listen();
    const admin = await startSender(`${receiverUrl}/plant/webhook?tenant=green`);
    const published = await api(admin, "POST", "/events", { id: 1, name: "Fern" });
    expect(published.status).toBe(202);
    const { messageId } = published.body;

    const spans = tracing;
    const [publish, attempt, receive, commit] = await until(async () => {
      const found = ["publish newPlant", "POST", "POST /plant/webhook", "process newPlant"].map((name) =>
        spans.one(name),
      );
      return found.every(Boolean) && found;
    });
    const traceId = publish!.spanContext().traceId;
    // The context stored with the message is the publish span's.
    expect((await sender!.store.outbox.getMessage(messageId))?.traceContext).toEqual({
      traceparent: `00-${traceId}-${publish!.spanContext().spanId}-01`,
    });
    for (const span of [attempt, receive, commit]) expect(span!.spanContext().traceId).toBe(traceId);
    expect(attempt!.parentSpanContext?.spanId).toBe(publish!.spanContext().spanId);
    expect(receive!.parentSpanContext?.spanId).toBe(attempt!.spanContext().spanId);
    expect(receive!.parentSpanContext?.isRemote).toBe(true);
    expect(commit!.parentSpanContext?.spanId).toBe(receive!.spanContext().spanId);

    expect(publish).toMatchObject({
      kind: SpanKind.PRODUCER,
      attributes: {
        "messaging.system": "plant_store",
        "messaging.operation.name": "publish",
        "messaging.operation.type": "send",
        "messaging.destination.name": "newPlant",
        "messaging.message.id": messageId,
      },
    });
    const port = Number(new URL(receiverUrl).port);
    expect(attempt).toMatchObject({ kind: SpanKind.CLIENT, status: { code: SpanStatusCode.UNSET } });
    expect(attempt!.attributes).toEqual({
      "http.request.method": "POST",
      "url.full": `${receiverUrl}/plant/webhook?tenant=…`,
      "server.address": "127.0.0.1",
      "server.port": port,
      "http.response.status_code": 200,
      "messaging.system": "plant_store",
      "messaging.destination.name": "newPlant",
      "messaging.message.id": messageId,
    });
    expect(receive).toMatchObject({
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        "http.request.method": "POST",
        "http.route": "/plant/webhook",
        "url.path": "/plant/webhook",
        "url.scheme": "http",
        "http.response.status_code": 200,
        "network.peer.address": "127.0.0.1",
      },
    });
    expect(receive!.attributes["network.peer.port"]).toEqual(expect.any(Number));
    expect(receive!.attributes).not.toHaveProperty("client.address");
    expect(commit).toMatchObject({
      kind: SpanKind.CONSUMER,
      attributes: {
        "messaging.system": "plant_store",
        "messaging.operation.name": "process",
        "messaging.operation.type": "process",
        "messaging.destination.name": "newPlant",
        "messaging.message.id": messageId,
        "messaging.message.body.size": Buffer.byteLength('{"id":1,"name":"Fern"}'),
        "plant_store.inbox.duplicate": false,
      },
    });
    // The commit span ends once the event is durable, inside the request it answers. (SimpleSpanProcessor exports a
    // span as it ends, so the exporter's order is the order of the ends; the spans' own times may differ by up
    // to a millisecond between spans, each anchoring Date.now on its own.)
    expect(await receiver.store.inbox.get(messageId)).not.toBeNull();
    const ended = spans.spans();
    expect(ended.indexOf(commit!)).toBeLessThan(ended.indexOf(receive!));
    expect(spans.spans()).toHaveLength(4);
  });

  it("traces every attempt of a retried delivery in the publish's trace: failed ones are errors", async () => {
    tracing = registerTracing();
    target = await sink((_req, res, n) => {
      if (n === 1) res.writeHead(503).end();
      else if (n === 2)
        res.socket?.destroy(); // cut without an answer
      else res.writeHead(200).end();
    });
    const admin = await startSender(target.url);
    expect((await api(admin, "POST", "/events", { id: 2, name: "Moss" })).status).toBe(202);
    const spans = tracing;
    const attempts = await until(async () => {
      const found = spans.spans().filter((span) => span.name === "POST");
      return found.length === 3 && found;
    });
    const publish = spans.one("publish newPlant")!;
    for (const attempt of attempts) {
      expect(attempt.spanContext().traceId).toBe(publish.spanContext().traceId);
      expect(attempt.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    }
    const [first, second, third] = attempts;
    expect(first).toMatchObject({ status: { code: SpanStatusCode.ERROR } });
    expect(first!.attributes).toMatchObject({ "http.response.status_code": 503, "error.type": "503" });
    expect(first!.attributes).not.toHaveProperty("http.request.resend_count");
    expect(second).toMatchObject({ status: { code: SpanStatusCode.ERROR } });
    expect(second!.attributes).toMatchObject({ "error.type": "network", "http.request.resend_count": 1 });
    expect(second!.attributes).not.toHaveProperty("http.response.status_code");
    expect(third).toMatchObject({ status: { code: SpanStatusCode.UNSET } });
    expect(third!.attributes).toMatchObject({
      "http.response.status_code": 200,
      "http.request.resend_count": 2,
    });
    expect(third!.attributes).not.toHaveProperty("error.type");
    // Each request carried its own attempt's context.
    expect(target.requests.map((r) => r.headers.traceparent)).toEqual(
      attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
    );
  });

  it("records a refused publish as an error of its span, with the store's code", async () => {
    tracing = registerTracing();
    const admin = await startSender("http://127.0.0.1:9/plant/webhook");
    expect((await api(admin, "POST", "/events", { id: 3 })).status).toBe(422);
    expect(tracing.one("publish newPlant")).toMatchObject({
      status: { code: SpanStatusCode.ERROR },
      attributes: { "error.type": "invalid_event" },
    });
  });
});

describe("tracing without an SDK", () => {
  it("sends no trace header and stores no trace context", async () => {
    target = await sink((_req, res) => res.writeHead(200).end());
    const admin = await startSender(target.url);
    const { messageId } = (await api(admin, "POST", "/events", { id: 4, name: "Ivy" })).body;
    await until(async () => target!.requests.length === 1);
    expect(target.requests[0]!.headers["webhook-id"]).toBe(messageId);
    expect(target.requests[0]!.headers).not.toHaveProperty("traceparent");
    expect(target.requests[0]!.headers).not.toHaveProperty("tracestate");
    expect((await sender!.store.outbox.getMessage(messageId))?.traceContext).toBeNull();
  });
});
