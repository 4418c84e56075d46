import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createToken, DELIVERY_STATES, IDEMPOTENCY_KEY_RULE } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdminOperationId, adminRoutes, buildAdminOpenApi, createAdminClient } from "../src/index.js";

const TOKEN = createToken();
const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
let answer: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: "{}" };
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
  });
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("createAdminClient over a real socket", () => {
  it("builds each request from the route table: method, encoded path, query, headers, JSON body", async () => {
    const client = createAdminClient({ baseUrl: base, token: TOKEN });
    answer = { status: 200, body: '{"data":[],"nextCursor":null}' };
    const page = await client.call("listDeliveries", { query: { state: "failed", limit: "5" } });
    expect(page).toEqual({ ok: true, status: 200, value: { data: [], nextCursor: null } });
    answer = { status: 200, body: '{"requeued":2}' };
    await client.call("recoverSubscription", {
      params: { id: "sub_a/b" },
      body: { since: "2026-11-22T10:00:00Z" },
    });
    answer = { status: 202, body: '{"messageId":"msg_1","deliveries":1,"duplicate":false}' };
    await client.call("publishEvent", {
      headers: { "idempotency-key": "k-1" },
      body: '{"id":1,"name":"Fern"}',
    });
    expect(seen.slice(-3).map(({ method, url, body }) => [method, url, body])).toEqual([
      ["GET", "/admin/deliveries?state=failed&limit=5", ""],
      ["POST", "/admin/subscriptions/sub_a%2Fb/recover", '{"since":"2026-11-22T10:00:00Z"}'],
      ["POST", "/admin/events", '{"id":1,"name":"Fern"}'],
    ]);
    expect(seen.at(-1)?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": "k-1",
    });
  });

  it("sends a batch as one JSON body, int64 ids as exact literals, and checks it with the route's schema", async () => {
    const client = createAdminClient({ baseUrl: base, token: TOKEN });
    answer = { status: 202, body: '{"data":[{"messageId":"msg_1","deliveries":1,"duplicate":false}]}' };
    const events = [
      { payload: { id: 9_223_372_036_854_775_807n, name: "Largest" }, idempotencyKey: "k-1" },
      { payload: { id: 2, name: "Moss" }, type: "newPlant" },
    ];
    expect(client.check("publishEvents", { body: { events } })).toEqual({ ok: true });
    const result = await client.call("publishEvents", { body: { events } });
    expect(result).toMatchObject({ ok: true, status: 202, value: { data: [{ messageId: "msg_1" }] } });
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/admin/events/batch" });
    expect(seen.at(-1)?.body).toBe(
      '{"events":[{"payload":{"id":9223372036854775807,"name":"Largest"},"idempotencyKey":"k-1"},{"payload":{"id":2,"name":"Moss"},"type":"newPlant"}]}',
    );
    expect(client.check("publishEvents", { body: { events: [] } })).toMatchObject({ ok: false });
  });

  it("returns every failure as a value: the sender's message, a redirect, not JSON, unreachable", async () => {
    const client = createAdminClient({ baseUrl: base, token: TOKEN });
    answer = { status: 404, body: '{"error":404,"message":"No subscription sub_x."}' };
    expect(await client.call("getSubscription", { params: { id: "sub_x" } })).toMatchObject({
      ok: false,
      kind: "status",
      status: 404,
      message: "No subscription sub_x.",
    });
    answer = { status: 307, headers: { location: "http://elsewhere/" }, body: "" };
    expect(await client.call("health", {})).toEqual({
      ok: false,
      kind: "redirect",
      status: 307,
      location: "http://elsewhere/",
    });
    answer = { status: 200, body: "<html>" };
    expect(await client.call("health", {})).toMatchObject({ ok: false, kind: "not-json", text: "<html>" });
    const closed = createAdminClient({ baseUrl: "http://127.0.0.1:9", token: TOKEN, timeoutMs: 5_000 });
    expect(await closed.call("health", {})).toMatchObject({ ok: false, kind: "unreachable" });
  });

  it("reads answers with the parser it is given (a message's int64 id kept to the digit)", async () => {
    const body =
      '{"id":"msg_1","idempotencyKey":null,"eventType":"newPlant","createdAt":"2026-11-25T00:00:00.000Z","payload":{"id":9223372036854775807,"name":"Fern"}}';
    answer = { status: 200, body };
    const texts: string[] = [];
    const exact = createAdminClient({
      baseUrl: base,
      token: TOKEN,
      parse: (text) => {
        texts.push(text);
        return { kept: text };
      },
    });
    expect(await exact.call("getMessage", { params: { id: "msg_1" } })).toEqual({
      ok: true,
      status: 200,
      value: { kept: body },
    });
    expect(texts).toEqual([body]);
    const plain = await createAdminClient({ baseUrl: base, token: TOKEN }).call("getMessage", {
      params: { id: "msg_1" },
    });
    // The default, JSON.parse, rounds it: what the parser option is for.
    expect(String(plain.ok && plain.value.payload.id)).toBe("9223372036854776000");
  });

  it("check() refuses with the sender's own rules, naming the field", () => {
    const client = createAdminClient({ baseUrl: base, token: TOKEN });
    expect(client.check("listDeliveries", { query: { state: "lost" as never } })).toEqual({
      ok: false,
      field: "state",
      message: `state must be one of ${DELIVERY_STATES.join(", ")}.`,
    });
    expect(client.check("publishEvent", { headers: { "idempotency-key": " k" }, body: "" })).toEqual({
      ok: false,
      field: "idempotency-key",
      message: `Idempotency-Key must be one value of ${IDEMPOTENCY_KEY_RULE}.`,
    });
    expect(
      client.check("rotateCredential", {
        params: { id: "sub_1" },
        body: { kind: "secret", graceSeconds: 604_801 },
      }),
    ).toMatchObject({ ok: false, field: "graceSeconds" });
    expect(
      client.check("recoverSubscription", { params: { id: "s" }, body: { since: "2026-02-30T10:00:00Z" } }),
    ).toMatchObject({
      ok: false,
      field: "since",
    });
    expect(client.check("listDeliveries", { query: { limit: "1000" } })).toEqual({ ok: true });
  });

  it("types operations by the route table: an operation the table does not have does not compile", () => {
    const client = createAdminClient({ baseUrl: base, token: TOKEN });
    const operations: AdminOperationId[] = Object.keys(adminRoutes) as AdminOperationId[];
    expect(operations).toContain("getDelivery");
    // @ts-expect-error: no such operation (a route dropped from the table breaks its callers the same way)
    expect(() => client.check("deleteEverything", {})).toThrow();
    // @ts-expect-error: a path parameter is required
    expect(client.check("getSubscription", {})).toMatchObject({ ok: false, field: "id" });
  });
});

describe("buildAdminOpenApi", () => {
  it("documents each route of the table once, with the spec's New Plant as the publish body", () => {
    const doc = buildAdminOpenApi() as {
      paths: Record<string, Record<string, { operationId: string; requestBody?: any }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids.sort()).toEqual(Object.keys(adminRoutes).sort());
    expect(doc.paths["/events"]?.post?.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/NewPlant",
    });
    expect(doc.components.schemas.NewPlant).toMatchObject({
      allOf: [{ $ref: "#/components/schemas/Plant" }, {}],
    });
  });
});
