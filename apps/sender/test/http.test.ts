import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeAnswerProbes } from "../../../test-support/node-answers.js";
import { keepWriting, rawExchange } from "../../../test-support/raw-http.js";
import { createSender, type Sender } from "../src/index.js";
import { ADMIN } from "./support.js";

let sender: Sender;
let url: string;
beforeAll(async () => {
  sender = await createSender({
    adminTokens: [ADMIN],
    worker: false,
    headersTimeoutMs: 300,
    requestTimeoutMs: 600,
  });
  url = await sender.listen(0);
});
afterAll(async () => {
  await sender.close();
});

describe("answers node:http would write itself are JSON", () => {
  nodeAnswerProbes(() => url);
});

describe("slow clients are cut at the configured times", () => {
  it("headers that stall: 408 (JSON) once headersTimeoutMs passes", async () => {
    const answer = await rawExchange(url, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
    expect(answer.status).toBe(408);
    expect(answer.json).toEqual({ error: 408, message: expect.any(String) });
    // Node used to check every 30 s: the cut comes within a second of the limit.
    expect(answer.ms).toBeGreaterThanOrEqual(290);
    expect(answer.ms).toBeLessThan(2_000);
  }, 10_000);

  it("headers trickled one byte at a time are cut too", async () => {
    const head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
    const parts = [...head].flatMap((c) => [c, 20]);
    const answer = await rawExchange(url, parts);
    expect(answer.status).toBe(408);
  }, 10_000);

  it("a body that stalls: 408 once requestTimeoutMs passes", async () => {
    const answer = await rawExchange(url, [
      `POST /events HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${ADMIN}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"id":`,
    ]);
    expect(answer.status).toBe(408);
    expect(answer.json).toEqual({ error: 408, message: expect.any(String) });
    expect(answer.ms).toBeGreaterThanOrEqual(590);
    expect(answer.ms).toBeLessThan(2_500);
  }, 10_000);
});

describe("an oversized body's 413 reaches a client that keeps writing", () => {
  it("5 MB written without pausing to POST /events: the 413 is read, not lost to a reset", async () => {
    const head = [
      "POST /events HTTP/1.1",
      "host: x",
      `authorization: Bearer ${ADMIN}`,
      "content-type: application/json",
      "content-length: 5000000",
      "",
      "",
    ].join("\r\n");
    const answer = await keepWriting(url, head, 5_000_000);
    expect(answer.raw).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.raw.slice(answer.raw.indexOf("\r\n\r\n") + 4))).toEqual({
      error: 413,
      message: expect.stringContaining("larger than"),
    });
  });
});

describe("DELETE /subscriptions/{id}", () => {
  it("deletes it with its pending deliveries (200 { id, deleted: true }), then 404; messages stay", async () => {
    const auth = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    // Created in the store: the admin API's SSRF guard would resolve the name, and no delivery is attempted here.
    const { id } = await sender.store.subscriptions.create({
      url: "https://plants.example.com/hook",
      token: "psk_t",
    });
    const published = await fetch(`${url}/events`, {
      method: "POST",
      headers: auth,
      body: '{"id":1,"name":"Fern"}',
    });
    const { messageId } = (await published.json()) as { messageId: string };
    const before = await fetch(`${url}/deliveries?subscriptionId=${id}`, { headers: auth });
    expect(((await before.json()) as { data: unknown[] }).data).toHaveLength(1);

    const deleted = await fetch(`${url}/subscriptions/${id}`, { method: "DELETE", headers: auth });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id, deleted: true });
    const after = await fetch(`${url}/deliveries?subscriptionId=${id}`, { headers: auth });
    expect(((await after.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await fetch(`${url}/messages/${messageId}`, { headers: auth })).status).toBe(200);
    const again = await fetch(`${url}/subscriptions/${id}`, { method: "DELETE", headers: auth });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 404, message: `No subscription ${id}.` });
  });
});
