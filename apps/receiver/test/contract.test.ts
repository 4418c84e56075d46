import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  cleanup,
  post,
  type Running,
  SECRET,
  signedHeaders,
  startReceiver,
  TOKEN,
  tempDir,
} from "./support.js";

const PLANT = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';
let receiver: Running;
let db: string;

beforeAll(async () => {
  db = join(tempDir(), "receiver.db");
  receiver = await startReceiver([
    "--token",
    TOKEN,
    "--secret",
    SECRET,
    "--admin-token",
    ADMIN,
    "--db",
    db,
    "--max-body",
    "512",
  ]);
});
afterAll(async () => {
  receiver.child.kill("SIGTERM");
  await receiver.exited;
  cleanup();
});

function expectError(r: { status: number; body: unknown }, status: number, pattern: RegExp) {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ error: status, message: expect.stringMatching(pattern) });
}

async function events(): Promise<{ webhookId: string; payload: unknown }[]> {
  const res = await fetch(`${receiver.url}/events?limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return ((await res.json()) as { data: { webhookId: string; payload: unknown }[] }).data;
}

describe("plant-store-receiver: every status code of the contract, over a real socket", () => {
  it("200: stores the event, and only then answers", async () => {
    const r = await post(receiver.url, PLANT, await signedHeaders(PLANT, { id: "msg_ok_1" }));
    expect(r.status).toBe(200);
    expect(r.body).toBeNull();
    const stored = (await events()).find((e) => e.webhookId === "msg_ok_1");
    expect(stored?.payload).toEqual({ id: 1, name: "Monstera deliciosa", tag: "tropical" });
  });

  it("200 for a duplicate webhook-id, stored once", async () => {
    const headers = await signedHeaders(PLANT, { id: "msg_dup_1" });
    expect((await post(receiver.url, PLANT, headers)).status).toBe(200);
    const again = await post(receiver.url, PLANT, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("webhook-duplicate")).toBe("true");
    expect((await events()).filter((e) => e.webhookId === "msg_dup_1")).toHaveLength(1);
  });

  it("400: malformed JSON", async () => {
    const body = '{"id":1,"name":';
    expectError(await post(receiver.url, body, await signedHeaders(body)), 400, /JSON/);
  });

  it("400: malformed webhook headers (a webhook-id with a space)", async () => {
    const headers = {
      ...(await signedHeaders(PLANT)),
      "webhook-id": "msg 1",
      "webhook-signature": `v1,${Buffer.alloc(32, 1).toString("base64")}`,
    };
    expectError(await post(receiver.url, PLANT, headers), 400, /id/i);
  });

  it("200: a correctly signed webhook-id with dots (the Standard Webhooks reference accepts them)", async () => {
    const res = await post(receiver.url, PLANT, await signedHeaders(PLANT, { id: "evt.2026.11.23" }));
    expect(res.status).toBe(200);
    expect((await events()).some((e) => e.webhookId === "evt.2026.11.23")).toBe(true);
  });

  it("401: another scheme (Basic) carries no bearer token: a bare challenge, RFC 6750 §3", async () => {
    const r = await post(receiver.url, PLANT, {
      ...(await signedHeaders(PLANT)),
      authorization: "Basic dXNlcjpwYXNz",
    });
    expectError(r, 401, /Missing bearer token/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
  });

  it("400: malformed Authorization, with an invalid_request challenge", async () => {
    const r = await post(receiver.url, PLANT, {
      ...(await signedHeaders(PLANT)),
      authorization: "Bearer a b",
    });
    expectError(r, 400, /Authorization/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store", error="invalid_request"');
  });

  it("401: no bearer token, with a bare challenge", async () => {
    const { authorization: _drop, ...headers } = await signedHeaders(PLANT);
    const r = await post(receiver.url, PLANT, headers);
    expectError(r, 401, /Missing bearer token/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
  });

  it("401: a wrong bearer token, with error=invalid_token", async () => {
    const r = await post(receiver.url, PLANT, await signedHeaders(PLANT, { token: ADMIN }));
    expectError(r, 401, /not accepted/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store", error="invalid_token"');
  });

  it("401: a signature made with another secret", async () => {
    const other = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expectError(
      await post(receiver.url, PLANT, await signedHeaders(PLANT, { secret: other })),
      401,
      /signature/i,
    );
  });

  it("401: a stale timestamp", async () => {
    const stale = Math.floor(Date.now() / 1000) - 3600;
    expectError(
      await post(receiver.url, PLANT, await signedHeaders(PLANT, { timestamp: stale })),
      401,
      /in the past/,
    );
  });

  it("401: unsigned, when signatures are required", async () => {
    const r = await post(receiver.url, PLANT, {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
    });
    expectError(r, 401, /signed/);
  });

  it("404: another path", async () => {
    const res = await fetch(`${receiver.url}/plants`, { method: "POST", body: PLANT });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 404, message: expect.stringContaining("/plant/webhook") });
  });

  it("405: another method, with Allow: POST", async () => {
    const res = await fetch(`${receiver.url}/plant/webhook`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({ error: 405, message: expect.stringContaining("POST") });
  });

  it("413: a body over --max-body", async () => {
    const big = JSON.stringify({ id: 2, name: "x".repeat(1000) });
    expectError(await post(receiver.url, big, await signedHeaders(big)), 413, /512 bytes/);
  });

  it("415: not JSON", async () => {
    const headers = { ...(await signedHeaders(PLANT)), "content-type": "text/plain" };
    expectError(await post(receiver.url, PLANT, headers), 415, /application\/json/);
  });

  it("422: a schema violation names the JSON pointer", async () => {
    const body = '{"id":"7","name":"Fern"}';
    expectError(await post(receiver.url, body, await signedHeaders(body)), 422, /\/id/);
  });

  it("200 for every int64 id, beyond 2^53 too, stored exactly as sent; 422 beyond int64", async () => {
    for (const id of ["9007199254740993", "-9223372036854775808", "9223372036854775807"]) {
      const body = `{"id":${id},"name":"Fern"}`;
      const r = await post(receiver.url, body, await signedHeaders(body, { id: `msg_int64_${id}` }));
      expect(r.status, id).toBe(200);
    }
    const listed = await fetch(`${receiver.url}/events?limit=1000`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await listed.text()).toContain('"payload":{"id":9007199254740993,"name":"Fern"}');
    const beyond = '{"id":9223372036854775808,"name":"Fern"}';
    expectError(await post(receiver.url, beyond, await signedHeaders(beyond)), 422, /\/id.*int64/s);
  });

  it("503 while the database cannot commit (another process holds the write lock); nothing acknowledged", async () => {
    const holder = new Database(db);
    holder.exec("BEGIN EXCLUSIVE");
    try {
      const order: string[] = [];
      const pending = fetch(`${receiver.url}/plant/webhook`, {
        method: "POST",
        body: PLANT,
        headers: await signedHeaders(PLANT, { id: "msg_locked" }),
      }).then((res) => {
        order.push("webhook");
        return res;
      });
      // While its commit waits for the lock, the receiver keeps serving: the wait does not block the event loop,
      // so /healthz is answered before the webhook's 503 (a blocking wait would answer it only afterwards).
      await new Promise((r) => setTimeout(r, 200));
      const health = await fetch(`${receiver.url}/healthz`);
      order.push("healthz");
      expect(health.status).toBe(200);
      const res = await pending;
      expect(order).toEqual(["healthz", "webhook"]);
      expectError({ status: res.status, body: await res.json() }, 503, /retry/i);
      // Not ready either: a read would still succeed (WAL), but a write cannot commit.
      const ready = await fetch(`${receiver.url}/readyz`);
      expectError(
        { status: ready.status, body: await ready.json() },
        503,
        /^Not ready \(store_unavailable\): the store cannot safely take writes/,
      );
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect((await fetch(`${receiver.url}/readyz`)).status).toBe(200);
    expect((await events()).some((e) => e.webhookId === "msg_locked")).toBe(false);
    // The sender's retry then succeeds.
    expect((await post(receiver.url, PLANT, await signedHeaders(PLANT, { id: "msg_locked" }))).status).toBe(
      200,
    );
  }, 30_000);

  it("GET /healthz, /readyz and /metrics", async () => {
    expect(await (await fetch(`${receiver.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${receiver.url}/readyz`)).json()).toEqual({
      status: "ready",
      backend: "sqlite",
    });
    const metrics = await (await fetch(`${receiver.url}/metrics`)).text();
    expect(metrics).toMatch(/plant_store_receiver_requests_total\{status="200"\} \d+/);
    expect(metrics).toMatch(/plant_store_receiver_requests_total\{status="401"\} \d+/);
    expect(metrics).toMatch(/plant_store_receiver_duplicates_total [1-9]/);
    expect(metrics).toMatch(/plant_store_receiver_inbox_events [1-9]/);
    expect(metrics).toContain("plant_store_receiver_request_duration_seconds_bucket");
    // Node's process metrics (prom-client's defaults) beside the receiver's own.
    expect(metrics).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(metrics).toMatch(/^process_resident_memory_bytes \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it("logs one JSON line per webhook request, and never a token or secret", async () => {
    await post(receiver.url, PLANT, await signedHeaders(PLANT, { id: "msg_logged" }));
    // The line is written when the event loop turn ends, after the answer: wait for it, not for a time.
    const loggedLine = () =>
      receiver
        .output()
        .split("\n")
        .find((line) => line.includes('"webhookId":"msg_logged"') && line.endsWith("}"));
    await expect.poll(loggedLine, { timeout: 15_000 }).toBeTruthy();
    const lines = receiver
      .output()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const logged = lines.find((l) => l.webhookId === "msg_logged");
    expect(logged).toMatchObject({ msg: "webhook", status: 200, outcome: "stored" });
    expect(lines.filter((l) => l.msg === "webhook" && l.status === 401).length).toBeGreaterThan(0);
    for (const credential of [TOKEN, SECRET, ADMIN, SECRET.slice(6)]) {
      expect(receiver.output()).not.toContain(credential);
    }
  });
});
