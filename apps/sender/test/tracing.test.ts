import type { IncomingMessage, Server, ServerResponse } from "node:http";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { createReceiver, type Receiver } from "@plant-store/receiver";
import { openStore, type Store } from "@plant-store/store";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, registerTracing, type TestTracing } from "../../../test-support/tracing.js";
import { createSender, type Sender, startWorker, type Worker } from "../src/index.js";
import { ADMIN, api, SECRET, type Sink, sink, TOKEN, until } from "./support.js";

// Sender and receiver run in this process, so the SDK registered here sees the spans of both: one trace from the
// publish to the receiver's commit, carried between them only by the stored context and the request's headers.
let tracing: TestTracing | undefined;
let sender: Sender | undefined;
let receiver: Receiver | undefined;
let target: Sink | undefined;
let worker: Worker | undefined;
let store: Store | undefined;
/** Globals a test registered without an SDK: taken down with the SDK's, after everything else closed. */
let globals: (() => void) | undefined;
afterEach(async () => {
  await closeAll(
    [
      () => sender?.close(),
      () => receiver?.close(),
      () => target?.close(),
      () => worker?.stop(),
      () => store?.close(),
    ],
    async () => {
      globals?.();
      await tracing?.shutdown();
    },
  );
  sender = receiver = target = worker = store = tracing = globals = undefined;
});

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT}-01`;

/**
 * What an HTTP server instrumentation does for every request: handle it, and every event of its request and
 * response, in the context the registered propagator extracts from its headers.
 */
function continueRequestContext(server: Server): void {
  const listeners = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const incoming = propagation.extract(ROOT_CONTEXT, req.headers);
    context.bind(incoming, req);
    context.bind(incoming, res);
    context.with(incoming, () => {
      for (const listener of listeners) listener(req, res);
    });
  });
}

/**
 * A sender delivering to `url`, retrying after 10 ms; resolves with its admin URL. With `requestContext`, each
 * admin request is handled in the context the registered propagator extracts from its headers, as an instrumented
 * HTTP server would hand it (its remote parent span, its tracestate, its baggage).
 */
async function startSender(url: string, { requestContext = false } = {}): Promise<string> {
  sender = await createSender({
    adminTokens: [ADMIN],
    allowNetworks: ["127.0.0.0/8"],
    schedule: [0, 10, 10, 10],
  });
  if (requestContext) continueRequestContext(sender.admin.server);
  await sender.store.subscriptions.create({ url, token: TOKEN, secrets: [SECRET] });
  return sender.listen();
}

describe("tracing with an OpenTelemetry SDK registered", () => {
  it("links publish -> attempt -> receive -> commit in one trace, with HTTP and messaging attributes", async () => {
    tracing = registerTracing();
    receiver = await createReceiver({ tokens: [TOKEN], secrets: [SECRET] });
    const receiverUrl = await receiver.listen();
    const admin = await startSender(`${receiverUrl}/plant/webhook?tenant=green`);
    const writes: (Span | undefined)[] = [];
    const outbox = sender!.store.outbox;
    const publishToStore = outbox.publish.bind(outbox);
    outbox.publish = (event, options) => {
      writes.push(trace.getActiveSpan());
      return publishToStore(event, options);
    };
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
    // The store wrote inside the publish's span: an instrumented database client's spans would be its children.
    expect(writes.map((span) => span?.spanContext().spanId)).toEqual([publish!.spanContext().spanId]);
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
      "url.full": `${receiverUrl}/plant/webhook?tenant=REDACTED`,
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

describe("tracing an incoming request's context", () => {
  it("publishes a request bringing a long baggage and tracestate, storing only the span's own context", async () => {
    tracing = registerTracing(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    target = await sink((_req, res) => res.writeHead(200).end());
    const admin = await startSender(target.url, { requestContext: true });
    // Two 3,000-byte baggage entries (the W3C limits: 4,096 per entry, 8,192 in all) and a tracestate of 480 bytes
    // (what the propagator keeps of one): together over the store's 4 KiB, as they would be injected from the request.
    const baggage = ["a", "b"].map((key) => `${key}=${"v".repeat(2_998)}`).join(",");
    const tracestate = Array.from({ length: 30 }, (_, i) => `k${i}=${"s".repeat(12)}`).join(",");
    const published = await api(
      admin,
      "POST",
      "/events",
      { id: 5, name: "Sage" },
      {
        traceparent: TRACEPARENT,
        tracestate,
        baggage,
      },
    );
    expect(published.status).toBe(202);

    const publish = tracing.one("publish newPlant")!;
    // The request's context was the publish's parent: its trace, and its tracestate inherited.
    expect(publish.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT, isRemote: true });
    const inherited = publish.spanContext().traceState!.serialize();
    expect(inherited.length).toBeGreaterThan(400);
    expect((await sender!.store.outbox.getMessage(published.body.messageId))?.traceContext).toEqual({
      traceparent: `00-${TRACE_ID}-${publish.spanContext().spanId}-01`,
      tracestate: inherited,
    });
    const [request] = await until(async () => target!.requests.length === 1 && target!.requests);
    expect(request!.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-`));
    expect(request!.headers).not.toHaveProperty("baggage");
  });

  it("keeps only traceparent when the span's own context is still over the store's limit", async () => {
    // A vendor propagator writing 5,000 bytes of its own for every span: the store would refuse that carrier.
    const vendor: TextMapPropagator = {
      inject: (_context, carrier, setter) => setter.set(carrier, "vendor-state", "x".repeat(5_000)),
      extract: (context) => context,
      fields: () => ["vendor-state"],
    };
    tracing = registerTracing(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), vendor] }),
    );
    target = await sink((_req, res) => res.writeHead(200).end());
    const admin = await startSender(target.url);
    const published = await api(admin, "POST", "/events", { id: 6, name: "Mint" });
    expect(published.status).toBe(202);
    const publish = tracing.one("publish newPlant")!;
    expect((await sender!.store.outbox.getMessage(published.body.messageId))?.traceContext).toEqual({
      traceparent: `00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`,
    });
    const [request] = await until(async () => target!.requests.length === 1 && target!.requests);
    expect(request!.headers.traceparent).toMatch(new RegExp(`^00-${publish.spanContext().traceId}-`));
  });
});

describe("an attempt that throws", () => {
  it("still ends its span, as an error with the thrown error's type", async () => {
    tracing = registerTracing();
    store = await openStore({ url: ":memory:", logger: { warn() {} } });
    await store.subscriptions.create({ url: "http://127.0.0.1:9/plant/webhook", token: TOKEN });
    await store.outbox.publish({ id: 7, name: "Dill" });
    const lines: { msg: string }[] = [];
    // A transport answering nothing usable: core's deliver throws reading it (a bug in a transport, not an outcome).
    worker = startWorker({
      store,
      transport: async () => null as never,
      logger: pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    });
    await until(async () => lines.some((line) => line.msg === "could not record the outcome"));
    expect(tracing.one("POST")).toMatchObject({
      kind: SpanKind.CLIENT,
      status: { code: SpanStatusCode.ERROR },
      attributes: { "error.type": "TypeError" },
    });
  });
});

describe("tracing without an SDK", () => {
  it("sends no trace header and stores no trace context, even with a propagator and a traced request", async () => {
    // A propagator and a context manager but no tracer provider: the API's no-op tracer would hand out spans
    // carrying the request's context, which the W3C propagator would write, were anything injected without an SDK.
    const manager = new AsyncLocalStorageContextManager().enable();
    expect(context.setGlobalContextManager(manager)).toBe(true);
    expect(propagation.setGlobalPropagator(new W3CTraceContextPropagator())).toBe(true);
    globals = () => {
      propagation.disable();
      context.disable();
    };
    target = await sink((_req, res) => res.writeHead(200).end());
    const admin = await startSender(target.url, { requestContext: true });
    const { messageId } = (
      await api(admin, "POST", "/events", { id: 4, name: "Ivy" }, { traceparent: TRACEPARENT })
    ).body;
    await until(async () => target!.requests.length === 1);
    expect(target.requests[0]!.headers["webhook-id"]).toBe(messageId);
    expect(target.requests[0]!.headers).not.toHaveProperty("traceparent");
    expect(target.requests[0]!.headers).not.toHaveProperty("tracestate");
    expect((await sender!.store.outbox.getMessage(messageId))?.traceContext).toBeNull();
  });
});
