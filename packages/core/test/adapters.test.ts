import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { rawRequest } from "../../../test-support/raw-http.js";
import { BODY_ALREADY_PARSED, plantStoreWebhook as expressWebhook } from "../src/adapters/express.js";
import { plantStoreWebhook as fastifyWebhook } from "../src/adapters/fastify.js";
import { plantStoreWebhook as honoWebhook } from "../src/adapters/hono.js";
import { createNodeHandler, handleNodeRequest, requestPath } from "../src/adapters/node.js";
import { createWebhookHandler } from "../src/receive/handler.js";
import type { ReceivedEvent } from "../src/receive/index.js";
import { NOW_MS, SECRET, signedHeaders, TOKEN } from "./helpers.js";

const PLANT = '{"id":7,"name":"Žlutá růže 🌹","tag":"rose"}';
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function options(events: ReceivedEvent[], extra: Record<string, unknown> = {}) {
  return {
    tokens: [TOKEN],
    secrets: [SECRET],
    now: () => NOW_MS,
    onEvent: (e: ReceivedEvent) => {
      events.push(e);
    },
    ...extra,
  } as never;
}

/** The same black-box checks against every adapter, over a real socket. */
async function contract(base: string, path: string, events: ReceivedEvent[]) {
  const url = `${base}${path}`;
  const ok = await fetch(url, { method: "POST", body: PLANT, headers: await signedHeaders(PLANT) });
  expect(ok.status).toBe(200);
  expect(events).toHaveLength(1);
  expect(new TextDecoder().decode(events[0]?.body)).toBe(PLANT);

  const unsigned = await fetch(url, {
    method: "POST",
    body: PLANT,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
  });
  expect(unsigned.status).toBe(401);

  const wrongMethod = await fetch(url, { method: "PUT", body: PLANT, headers: await signedHeaders(PLANT) });
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get("allow")).toBe("POST");

  const notJson = await fetch(url, {
    method: "POST",
    body: PLANT,
    headers: { ...(await signedHeaders(PLANT)), "content-type": "text/plain" },
  });
  expect(notJson.status).toBe(415);
  expect(await notJson.json()).toEqual({ error: 415, message: expect.any(String) });

  const big = JSON.stringify({ id: 1, name: "x".repeat(4096) });
  const tooBig = await fetch(url, { method: "POST", body: big, headers: await signedHeaders(big) });
  expect(tooBig.status).toBe(413);
  expect(await tooBig.json()).toEqual({ error: 413, message: expect.stringContaining("1024 bytes") });

  const bad = '{"id":"7","name":"x"}';
  const invalid = await fetch(url, {
    method: "POST",
    body: bad,
    headers: await signedHeaders(bad, { id: "m2" }),
  });
  expect(invalid.status).toBe(422);
  expect(((await invalid.json()) as { message: string }).message).toContain("/id");
  expect(events).toHaveLength(1);

  // Two Authorization fields (RFC 9110 allows one): refused as malformed, whichever of them is valid.
  const twice = await signedHeaders(PLANT, { id: "m-two-authorizations" });
  for (const order of [
    [`Bearer ${TOKEN}`, "Bearer psk_someoneelse"],
    ["Bearer psk_someoneelse", `Bearer ${TOKEN}`],
  ]) {
    const lines = Object.entries(twice)
      .filter(([k]) => k !== "authorization")
      .map(([k, v]) => `${k}: ${v}`);
    const { raw: answer } = await rawRequest(
      base,
      "POST",
      path,
      [...order.map((v) => `Authorization: ${v}`), ...lines],
      PLANT,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain("more than one");
    expect(answer).not.toContain(TOKEN);
  }
  expect(events).toHaveLength(1);
}

describe("adapters over real sockets", () => {
  it("node:http", async () => {
    const events: ReceivedEvent[] = [];
    const base = await listen(createServer(createNodeHandler(options(events, { maxBodyBytes: 1024 }))));
    await contract(base, "/plant/webhook", events);
    const missing = await fetch(`${base}/elsewhere`, { method: "POST" });
    expect(missing.status).toBe(404);
    // Absolute-form request target (RFC 9112 §3.2.2: a server must accept it), over a raw socket.
    const headers = await signedHeaders(PLANT, { id: "m-absolute" });
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
    const { raw: answer } = await rawRequest(base, "POST", `${base}/plant/webhook?via=proxy`, lines, PLANT);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(events).toHaveLength(2);
  });

  it("requestPath reads origin-form and absolute-form targets", () => {
    expect(requestPath("/plant/webhook?x=1")).toBe("/plant/webhook");
    expect(requestPath("/plant/webhook")).toBe("/plant/webhook");
    expect(requestPath("http://127.0.0.1:4000/plant/webhook?x=1")).toBe("/plant/webhook");
    expect(requestPath("https://h")).toBe("/");
    expect(requestPath(undefined)).toBe("/");
    expect(requestPath("*")).toBe("*");
  });

  it("node:http: a client that goes away mid-body is no request (null), and nothing is stored", async () => {
    const events: ReceivedEvent[] = [];
    const handler = createWebhookHandler(options(events));
    const outcomes: unknown[] = [];
    let settled: (() => void) | undefined;
    let started: (() => void) | undefined;
    const done = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const arrived = new Promise<void>((resolve) => {
      started = resolve;
    });
    const base = await listen(
      createServer((req, res) => {
        started?.();
        void handleNodeRequest(handler, req, res).then((outcome) => {
          outcomes.push(outcome);
          settled?.();
        });
      }),
    );
    const headers = await signedHeaders(PLANT);
    const socket = connect(Number(new URL(base).port), "127.0.0.1");
    await once(socket, "connect");
    const head = Object.entries({ ...headers, host: "127.0.0.1", "content-length": "500" })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    socket.write(`POST /plant/webhook HTTP/1.1\r\n${head}\r\n${PLANT.slice(0, 10)}`);
    await arrived; // the server is reading this request's body
    socket.destroy();
    await done;
    expect(outcomes).toEqual([null]);
    expect(events).toHaveLength(0);
  });

  it("node:http stops reading at the cap (413 before the whole body arrives)", async () => {
    const events: ReceivedEvent[] = [];
    const base = await listen(createServer(createNodeHandler(options(events, { maxBodyBytes: 1024 }))));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > 64 * 1024 * 1024) return c.close();
        sent += 65536;
        c.enqueue(new Uint8Array(65536).fill(32));
      },
    });
    const res = await fetch(`${base}/plant/webhook`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      duplex: "half",
    } as RequestInit).catch((e) => e);
    // Either the 413 arrives, or the server closed the socket while we were still sending; both mean it stopped.
    if (res instanceof Response) expect(res.status).toBe(413);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it("express, mounted before express.json()", async () => {
    const events: ReceivedEvent[] = [];
    const app = express();
    app.all("/hooks/plant", expressWebhook(options(events, { maxBodyBytes: 1024 })));
    app.use(express.json());
    await contract(await listen(createServer(app)), "/hooks/plant", events);
  });

  it("express with express.raw() on the route", async () => {
    const events: ReceivedEvent[] = [];
    const app = express();
    app.post(
      "/plant/webhook",
      express.raw({ type: "application/json" }),
      expressWebhook(options(events, { maxBodyBytes: 1024 })),
    );
    const base = await listen(createServer(app));
    const ok = await fetch(`${base}/plant/webhook`, {
      method: "POST",
      body: PLANT,
      headers: await signedHeaders(PLANT),
    });
    expect(ok.status).toBe(200);
    expect(new TextDecoder().decode(events[0]?.body)).toBe(PLANT);
  });

  it("express after express.json(): a clear 503 telling what to change, never a 200", async () => {
    const events: ReceivedEvent[] = [];
    const app = express();
    app.use(express.json());
    app.post("/plant/webhook", expressWebhook(options(events)));
    const base = await listen(createServer(app));
    const res = await fetch(`${base}/plant/webhook`, {
      method: "POST",
      body: PLANT,
      headers: await signedHeaders(PLANT),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 503, message: BODY_ALREADY_PARSED });
    expect(events).toHaveLength(0);
  });

  it("fastify plugin, encapsulated (the app keeps its JSON parser)", async () => {
    const events: ReceivedEvent[] = [];
    const app = Fastify();
    await app.register(fastifyWebhook as never, options(events, { maxBodyBytes: 1024 }));
    app.post("/other", async (request) => ({ got: request.body }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await contract(base, "/plant/webhook", events);
    const huge = JSON.stringify({ id: 1, name: "y".repeat(10_000) });
    const tooBig = await fetch(`${base}/plant/webhook`, {
      method: "POST",
      body: huge,
      headers: await signedHeaders(huge),
    });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toEqual({ error: 413, message: expect.stringContaining("1024 bytes") });
    const other = await fetch(`${base}/other`, {
      method: "POST",
      body: '{"a":1}',
      headers: { "content-type": "application/json" },
    });
    expect(await other.json()).toEqual({ got: { a: 1 } });
  });

  it("hono", async () => {
    const events: ReceivedEvent[] = [];
    const app = new Hono();
    app.all("/plant/webhook", honoWebhook(options(events, { maxBodyBytes: 1024 })));
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
      const response = await app.fetch(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          // Every field line as sent, as @hono/node-server builds its Request (node's req.headers keeps one
          // Authorization of two).
          headers: Array.from({ length: req.rawHeaders.length / 2 }, (_, i): [string, string] => [
            req.rawHeaders[2 * i] as string,
            req.rawHeaders[2 * i + 1] as string,
          ]),
          body,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await contract(await listen(server), "/plant/webhook", events);
  });
});
