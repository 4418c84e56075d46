import { once } from "node:events";
import { Agent, type IncomingMessage, request } from "node:http";
import { fileURLToPath } from "node:url";
import { catalog } from "@plant-store/spec";
import { loadCatalog } from "@plant-store/spec/load";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../../test-support/raw-http.js";
import { createReceiver } from "../src/index.js";
import {
  ADMIN,
  cleanup,
  post,
  type Running,
  SECRET,
  signedHeaders,
  startReceiver,
  TOKEN,
} from "./support.js";

const plant = (id: number) => JSON.stringify({ id, name: `Plant ${id}` });

let receiver: Running;
let plain: Running;

beforeAll(async () => {
  receiver = await startReceiver([
    "--token",
    TOKEN,
    "--secret",
    SECRET,
    "--admin-token",
    ADMIN,
    "--db",
    ":memory:",
  ]);
  plain = await startReceiver(["--token", TOKEN, "--db", ":memory:"]);
});
afterAll(async () => {
  for (const r of [receiver, plain]) {
    r.child.kill("SIGTERM");
    await r.exited;
  }
  cleanup();
});

const get = (path: string, token?: string) =>
  fetch(`${receiver.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe("admin endpoints", () => {
  it("are off (404, saying how to turn them on) without --admin-token", async () => {
    const res = await fetch(`${plain.url}/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 404, message: expect.stringContaining("--admin-token") });
  });

  it("refuse a missing or wrong admin token with a challenge; the webhook token is not an admin token", async () => {
    const missing = await get("/events");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="plant-store-admin"');
    for (const token of [TOKEN, "psk_1111111111111111111111111111114SunM0"]) {
      const wrong = await get("/events", token);
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(await wrong.json()).toEqual({ error: 401, message: expect.any(String) });
    }
  });

  it("refuse two Authorization headers (400) whichever of them holds the admin token", async () => {
    for (const [first, second] of [
      [`Bearer ${ADMIN}`, `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, `Bearer ${ADMIN}`],
    ]) {
      const res = await rawRequest(receiver.url, "GET", "/events", [
        `authorization: ${first}`,
        `authorization: ${second}`,
      ]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: 400, message: expect.stringContaining("more than one") });
    }
  });

  it("GET /events pages newest first with a cursor, and refuses bad paging input", async () => {
    for (let i = 1; i <= 5; i++) {
      const body = plant(i);
      expect(
        (await post(receiver.url, body, await signedHeaders(body, { id: `msg_page_${i}` }))).status,
      ).toBe(200);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/events?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = (await (await get(query, ADMIN)).json()) as {
        data: { webhookId: string }[];
        nextCursor: string | null;
      };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((e) => e.webhookId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.filter((id) => id.startsWith("msg_page_"))).toEqual(
      [5, 4, 3, 2, 1].map((i) => `msg_page_${i}`),
    );
    expect((await get("/events?limit=1000", ADMIN)).status).toBe(200);
    for (const limit of ["abc", "0", "1001", "9999", "-1", "1.5"]) {
      const refused = await get(`/events?limit=${limit}`, ADMIN);
      expect(refused.status, limit).toBe(400);
      expect(await refused.json()).toEqual({
        error: 400,
        message: "limit must be a whole number from 1 to 1000.",
      });
    }
    const bad = await get("/events?cursor=garbage", ADMIN);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 400, message: expect.stringMatching(/cursor/i) });
    // A parameter given twice has no one meaning, whichever order: refused by name, as the sender's API does.
    for (const query of ["limit=1&limit=5000", "limit=5000&limit=1", "after=1&after=2"]) {
      const path = query.startsWith("after") ? `/events/stream?${query}` : `/events?${query}`;
      const twice = await get(path, ADMIN);
      expect(twice.status, query).toBe(400);
      expect(await twice.json()).toEqual({ error: 400, message: expect.stringMatching(/more than once/) });
    }
  });

  it("GET /events/stream delivers new events live and resumes after Last-Event-ID", async () => {
    const controller = new AbortController();
    const res = await fetch(`${receiver.url}/events/stream?after=999999`, {
      headers: { authorization: `Bearer ${ADMIN}` },
      signal: controller.signal,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const body = plant(42);
    await post(receiver.url, body, await signedHeaders(body, { id: "msg_live" }));
    let text = "";
    while (!text.includes("msg_live")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const frame = text.split("\n\n").find((f) => f.includes("msg_live")) as string;
    const id = /^id: (\d+)$/m.exec(frame)?.[1];
    expect(frame).toMatch(/^event: new-plant$/m);
    const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] as string) as { payload: unknown };
    expect(data.payload).toEqual({ id: 42, name: "Plant 42" });

    // Resume: everything after the event we saw, nothing before it.
    const next = plant(43);
    await post(receiver.url, next, await signedHeaders(next, { id: "msg_after_live" }));
    const resumed = new AbortController();
    const again = await fetch(`${receiver.url}/events/stream`, {
      headers: { authorization: `Bearer ${ADMIN}`, "last-event-id": id as string },
      signal: resumed.signal,
    });
    const r2 = (again.body as ReadableStream<Uint8Array>).getReader();
    let text2 = "";
    while (!text2.includes("msg_after_live")) {
      const { value, done } = await r2.read();
      if (done) break;
      text2 += new TextDecoder().decode(value);
    }
    resumed.abort();
    expect(text2).toContain("msg_after_live");
    expect(text2).not.toContain('msg_live"');
    expect((await get("/events/stream?after=abc", ADMIN)).status).toBe(400);
  });

  it("HEAD /events/stream answers the stream's headers at once and ends the response", async () => {
    // One keep-alive connection: the /healthz after it is only answered once the HEAD response has ended.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (method: string, path: string) =>
      new Promise<IncomingMessage>((resolve, reject) =>
        request(
          `${receiver.url}${path}`,
          { method, agent, headers: { authorization: `Bearer ${ADMIN}` } },
          resolve,
        )
          .on("error", reject)
          .end(),
      );
    const head = await ask("HEAD", "/events/stream?after=0");
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    head.resume();
    await once(head, "end");
    const next = await ask("GET", "/healthz");
    expect(next.statusCode).toBe(200);
    next.resume();
    expect((await ask("HEAD", "/events/stream?after=abc")).statusCode).toBe(400);
    agent.destroy();
  });

  it("GET /event-types lists the webhooks served: the built-in contract's, or those of --spec that --events keeps", async () => {
    expect((await get("/event-types")).status).toBe(401);
    const builtIn = await get("/event-types", ADMIN);
    expect(builtIn.status).toBe(200);
    expect(await builtIn.json()).toEqual({ data: JSON.parse(JSON.stringify(catalog)) });
    const own = await createReceiver({
      tokens: [TOKEN],
      adminTokens: [ADMIN],
      catalog: await loadCatalog(
        fileURLToPath(new URL("../../../test-support/fixtures/multi-webhook.yaml", import.meta.url)),
      ),
      events: ["plantSold", "inventoryChanged"],
    });
    try {
      const url = await own.listen(0, "127.0.0.1");
      const listed = await fetch(`${url}/event-types`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(
        ((await listed.json()) as { data: { type: string; path: string }[] }).data.map((e) => [
          e.type,
          e.path,
        ]),
      ).toEqual([
        ["plantSold", "/plant/sold"],
        ["inventoryChanged", "/inventory/changed"],
      ]);
    } finally {
      await own.close();
    }
  });

  it("405 for other methods on the ops endpoints, 404 elsewhere, always {error, message}", async () => {
    const res = await fetch(`${receiver.url}/metrics`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(await res.json()).toEqual({ error: 405, message: expect.any(String) });
    const missing = await fetch(`${receiver.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 404, message: expect.any(String) });
  });
});

describe("without a webhook-id (no secret configured)", () => {
  it("stores the event under an id of its own", async () => {
    const res = await fetch(`${plain.url}/plant/webhook`, {
      method: "POST",
      body: plant(7),
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
  });
});
