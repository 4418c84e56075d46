import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createKeyPair, createSecret, verify } from "../signing/index.js";
import { VERSION } from "../version.js";
import { deliver } from "./deliver.js";
import { BLOCKED_ADDRESS_CODE } from "./describe-error.js";
import type { DeliveryTarget, Transport, TransportRequest } from "./types.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Local {
  url: string;
  received: Received[];
  close: () => Promise<void>;
}

const open: Local[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A real HTTP server on 127.0.0.1 that records each request, then lets `respond` answer it. */
async function listen(
  respond: (res: ServerResponse, req: IncomingMessage) => void = (res) => res.end("ok"),
): Promise<Local> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      respond(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const local: Local = {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(local);
  return local;
}

const token = "psk_7Hq2mXvR9tLpZ4wKcN8bYdF3sGjA";
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0, 250);
const clock = (start = NOW) => {
  const state = { ms: start };
  return { state, now: () => state.ms };
};

describe("deliver over real HTTP", () => {
  it("POSTs the exact bytes with every header, signed once per secret", async () => {
    const secrets = [createSecret(), createSecret()];
    const { state, now } = clock();
    const server = await listen((res) => {
      state.ms += 250; // the endpoint takes 250 ms on the injected clock
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    });
    // Spacing, key order, an unsafe integer and escapes: any re-serialization would change these bytes.
    const body = Buffer.from('{ "name" : "Ficus \\u00e9 ✓",\n  "id":9223372036854775807 }\xff', "latin1");
    // A view into a larger buffer: only the viewed bytes may be sent.
    const padded = Buffer.concat([Buffer.from("before"), body, Buffer.from("after")]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 6, body.length);
    const message = { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body: view };

    const outcome = await deliver({ url: `${server.url}/plant/webhook?tenant=a`, token, secrets }, message, {
      now,
    });

    expect(outcome).toEqual({
      kind: "delivered",
      reason: "status",
      status: 200,
      latencyMs: 250,
      timestamp: Math.floor(NOW / 1000),
      responseBody: "thanks",
    });
    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/plant/webhook?tenant=a");
    expect(request!.body.equals(body)).toBe(true);
    expect(request!.headers).toMatchObject({
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "user-agent": `plant-store/${VERSION}`,
      "webhook-id": message.id,
      "webhook-timestamp": String(Math.floor(NOW / 1000)),
      "webhook-event-type": "newPlant",
      "content-length": String(body.length),
    });
    const signature = request!.headers["webhook-signature"] as string;
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of secrets) {
      const checked = await verify({
        secrets: [secret],
        id: request!.headers["webhook-id"] as string,
        timestamp: request!.headers["webhook-timestamp"] as string,
        signature,
        body: request!.body,
        now,
      });
      expect(checked).toEqual({ ok: true, timestamp: Math.floor(NOW / 1000) });
    }
    const tampered = await verify({
      secrets,
      id: message.id,
      timestamp: String(Math.floor(NOW / 1000)),
      signature,
      body: Buffer.concat([request!.body, Buffer.from(" ")]),
      now,
    });
    expect(tampered.ok).toBe(false);
  });

  it("signs v1a with the target's private keys, after the v1 signatures, or alone", async () => {
    const pair = await createKeyPair();
    const secret = createSecret();
    const server = await listen((res) => res.writeHead(204).end());
    const body = '{"id":1,"name":"Fern"}';
    await deliver(
      { url: server.url, token, secrets: [secret], privateKeys: [pair.privateKey] },
      { id: "msg_1", body },
    );
    await deliver(
      { url: server.url, token, secrets: [], privateKeys: [pair.privateKey] },
      { id: "msg_2", body },
    );
    const [both, keyOnly] = server.received;
    expect(both!.headers["webhook-signature"]).toMatch(/^v1,\S+ v1a,\S+$/);
    expect(keyOnly!.headers["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    for (const request of [both!, keyOnly!]) {
      const headers = request.headers as Record<string, string>;
      const input = {
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
        body: request.body,
      };
      expect(await verify({ ...input, publicKeys: [pair.publicKey] })).toMatchObject({ ok: true });
    }
    const broken = await deliver(
      { url: server.url, token, secrets: [], privateKeys: ["whsk_AAAA"] },
      { id: "msg_3", body },
    );
    expect(broken).toMatchObject({
      kind: "failed",
      error: expect.stringMatching(/^Cannot sign for this target: .*private key/),
    });
    expect(server.received).toHaveLength(2);
  });

  it("sends a string body as UTF-8, without a signature when there is no secret", async () => {
    const server = await listen((res) => res.writeHead(204).end());
    const body = '{"id":1,"name":"Monstera 🌿"}';
    const outcome = await deliver(
      { url: server.url, token, secrets: [] },
      { id: "msg_1", body },
      {
        userAgent: "custom/1",
      },
    );
    expect(outcome).toMatchObject({ kind: "delivered", status: 204, responseBody: "" });
    const [request] = server.received;
    expect(request!.body.toString("utf8")).toBe(body);
    expect(request!.headers["webhook-signature"]).toBeUndefined();
    expect(request!.headers["user-agent"]).toBe("custom/1");
    expect(request!.headers["webhook-event-type"]).toBe("newPlant");
  });

  it("names the message's event type in webhook-event-type, outside the signed content", async () => {
    const server = await listen((res) => res.writeHead(200).end());
    const secret = createSecret();
    const { now } = clock();
    const message = { id: "msg_sold", eventType: "plantSold", body: '{"plantId":1,"price":2}' };
    expect(await deliver({ url: server.url, token, secrets: [secret] }, message, { now })).toMatchObject({
      kind: "delivered",
    });
    const [request] = server.received;
    expect(request!.headers["webhook-event-type"]).toBe("plantSold");
    // Standard Webhooks signs id.timestamp.body; the type routes, the body is validated against that type's schema.
    const checked = await verify({
      secrets: [secret],
      id: request!.headers["webhook-id"] as string,
      timestamp: request!.headers["webhook-timestamp"] as string,
      signature: request!.headers["webhook-signature"] as string,
      body: request!.body,
      now,
    });
    expect(checked.ok).toBe(true);
  });

  it("keeps webhook-id and signs a fresh webhook-timestamp on each attempt", async () => {
    const secrets = [createSecret()];
    const server = await listen((res) => res.writeHead(500).end("down"));
    const message = { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body: '{"id":2,"name":"Fern"}' };
    const first = await deliver({ url: server.url, token, secrets }, message, { now: () => NOW });
    const second = await deliver({ url: server.url, token, secrets }, message, { now: () => NOW + 5000 });
    expect(first).toMatchObject({ kind: "retry", status: 500, responseBody: "down" });
    expect(second.timestamp).toBe(first.timestamp + 5);
    const [a, b] = server.received;
    expect(a!.headers["webhook-id"]).toBe(message.id);
    expect(b!.headers["webhook-id"]).toBe(message.id);
    expect(b!.headers["webhook-timestamp"]).toBe(String(second.timestamp));
    expect(b!.headers["webhook-signature"]).not.toBe(a!.headers["webhook-signature"]);
    const checked = await verify({
      secrets,
      id: message.id,
      timestamp: b!.headers["webhook-timestamp"] as string,
      signature: b!.headers["webhook-signature"] as string,
      body: b!.body,
      now: () => NOW + 5000,
    });
    expect(checked.ok).toBe(true);
  });

  it("never follows a redirect", async () => {
    const elsewhere = await listen();
    const server = await listen((res) => res.writeHead(302, { location: `${elsewhere.url}/moved` }).end());
    const outcome = await deliver({ url: server.url, token, secrets: [] }, { id: "msg_r", body: "{}" });
    expect(outcome).toMatchObject({ kind: "retry", reason: "status", status: 302 });
    expect(outcome.error).toMatch(/redirects are not followed/);
    expect(server.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("retries with the status for other failures and gives up on 410", async () => {
    for (const status of [400, 401, 404, 408, 500]) {
      const server = await listen((res) => res.writeHead(status).end());
      const outcome = await deliver({ url: server.url, token, secrets: [] }, { id: "msg_s", body: "{}" });
      expect(outcome).toMatchObject({ kind: "retry", reason: "status", status });
      expect(outcome.retryAfterMs).toBeUndefined();
    }
    const gone = await listen((res) => res.writeHead(410).end("unsubscribed"));
    expect(await deliver({ url: gone.url, token, secrets: [] }, { id: "msg_g", body: "{}" })).toMatchObject({
      kind: "gone",
      status: 410,
      responseBody: "unsubscribed",
    });
  });

  it("reads Retry-After as delta-seconds or an HTTP-date relative to the injected clock", async () => {
    const cases: Array<[number, string, number | undefined]> = [
      [429, "120", 120_000],
      [503, new Date(NOW - 250 + 90_000).toUTCString(), 89_750],
      [502, "Sunday, 06-Nov-94 08:49:37 GMT", 0],
      [504, "in a while", undefined],
      [500, "120", undefined],
    ];
    for (const [status, retryAfter, expected] of cases) {
      const server = await listen((res) => res.writeHead(status, { "retry-after": retryAfter }).end());
      const outcome = await deliver(
        { url: server.url, token, secrets: [] },
        { id: "msg_ra", body: "{}" },
        {
          now: () => NOW,
        },
      );
      expect(outcome.kind).toBe("retry");
      expect(outcome.retryAfterMs, `${status} ${retryAfter}`).toBe(expected);
    }
  });

  it("times out a silent endpoint and retries", async () => {
    const server = await listen(() => {}); // never answers
    const outcome = await deliver(
      { url: server.url, token, secrets: [] },
      { id: "msg_t", body: "{}" },
      {
        timeoutMs: 150,
      },
    );
    expect(outcome).toMatchObject({ kind: "retry", reason: "timeout" });
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toMatch(/timed out after 150 ms/);
    expect(server.received).toHaveLength(1);
  });

  it("times out a body that stalls, keeping the status", async () => {
    const stalled = await listen((res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.write("partial");
    });
    const outcome = await deliver(
      { url: stalled.url, token, secrets: [] },
      { id: "msg_b", body: "{}" },
      {
        timeoutMs: 1000, // generous: the status must arrive before it even on a loaded CI machine
      },
    );
    // A status arrived: it decided, even though its body then timed out.
    expect(outcome).toMatchObject({ kind: "retry", reason: "status", status: 503 });
    expect(outcome.error).toMatch(/503.*timed out after 1000 ms/);

    const accepted = await listen((res) => {
      res.writeHead(200);
      res.write("partial");
    });
    const delivered = await deliver(
      { url: accepted.url, token, secrets: [] },
      { id: "msg_b", body: "{}" },
      {
        timeoutMs: 1000, // generous: the status must arrive before it even on a loaded CI machine
      },
    );
    expect(delivered).toMatchObject({ kind: "delivered", status: 200 });
    expect(delivered.error).toBeUndefined();
  });

  it("keeps the first bytes of a 50 MB response without reading the rest", async () => {
    const total = 50 * 1024 * 1024;
    let queued = 0;
    let socketWritten = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = await listen((res) => {
      const chunk = Buffer.alloc(64 * 1024, "z");
      res.writeHead(500, { "content-type": "text/plain" });
      res.on("close", () => {
        socketWritten = res.socket?.bytesWritten ?? queued;
        closed();
      });
      const pump = () => {
        while (queued < total && !res.destroyed) {
          queued += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });

    const outcome = await deliver({ url: server.url, token, secrets: [] }, { id: "msg_big", body: "{}" });
    expect(outcome.kind).toBe("retry");
    expect(outcome.responseBody).toBe("z".repeat(4096));
    await connectionClosed;
    // Socket buffers absorb a few MB; a buffered read would have pulled all 50.
    expect(queued).toBeLessThan(total / 4);
    expect(socketWritten).toBeLessThan(total / 4);

    const small = await deliver(
      { url: server.url, token, secrets: [] },
      { id: "msg_big", body: "{}" },
      {
        maxResponseBytes: 10,
      },
    );
    expect(small.responseBody).toBe("z".repeat(10));
  });

  it("retries when the connection is refused, naming the cause but not the token", async () => {
    const server = await listen();
    const url = server.url;
    await server.close();
    const outcome = await deliver({ url, token, secrets: [createSecret()] }, { id: "msg_c", body: "{}" });
    expect(outcome).toMatchObject({ kind: "retry", reason: "network" });
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
    expect(outcome.error).not.toContain(token);
  });

  it("redacts the token from an echoed response body", async () => {
    const server = await listen((res, req) => res.writeHead(401).end(`bad: ${req.headers.authorization}`));
    const outcome = await deliver({ url: server.url, token, secrets: [] }, { id: "msg_e", body: "{}" });
    expect(outcome.responseBody).toBe("bad: Bearer [redacted]");
  });
});

describe("deliver without reaching an endpoint", () => {
  const message = { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body: "{}" };
  const refuse: typeof fetch = () => {
    throw new Error("fetch must not be called");
  };

  it("fails for targets that can never work, without calling fetch", async () => {
    const secret = "whsec_bm90LWJhc2U2NCE=!!";
    const cases: Array<[DeliveryTarget, RegExp]> = [
      [{ url: "not a url", token, secrets: [] }, /not a valid absolute URL/],
      [{ url: "ftp://127.0.0.1/", token, secrets: [] }, /http or https/],
      [{ url: "http://u:p@127.0.0.1/", token, secrets: [] }, /credentials/],
      [{ url: "http://127.0.0.1/", token: `${token}\r\nx: y`, secrets: [] }, /bearer token/],
      [{ url: "http://127.0.0.1/", token, secrets: [secret] }, /Cannot sign/],
      // Set up to verify v1a, but no private key here: never sent unsigned (or with the v1 half only).
      [
        { url: "http://127.0.0.1/", token, secrets: [], signing: "asymmetric" },
        /v1a.*no ed25519 private key/,
      ],
      [{ url: "http://127.0.0.1/", token, secrets: [createSecret()], signing: "both" }, /signing "both"/],
    ];
    for (const [target, reason] of cases) {
      const outcome = await deliver(target, message, { fetch: refuse, now: () => NOW });
      expect(outcome).toMatchObject({
        kind: "failed",
        reason: "unusable_target",
        latencyMs: 0,
        timestamp: Math.floor(NOW / 1000),
      });
      expect(outcome.error).toMatch(reason);
      expect(outcome.error).not.toContain(token);
      expect(outcome.error).not.toContain(secret);
    }
    const badId = await deliver(
      { url: "http://127.0.0.1/", token, secrets: [] },
      { id: "msg 1\n", body: "{}" },
      {
        fetch: refuse,
      },
    );
    expect(badId).toMatchObject({
      kind: "failed",
      reason: "unusable_target",
      error: expect.stringMatching(/webhook-id/),
    });
    // The webhook-id rule of signing (1 to 256 visible ASCII characters), length cap included.
    const longId = await deliver(
      { url: "http://127.0.0.1/", token, secrets: [] },
      { id: `msg_${"x".repeat(253)}`, body: "{}" },
      { fetch: refuse },
    );
    expect(longId).toMatchObject({ kind: "failed", error: expect.stringMatching(/webhook-id.*256/) });
    for (const eventType of ["", "plant sold", "plantSold\r\nx-injected: 1", 5]) {
      const badType = await deliver(
        { url: "http://127.0.0.1/", token, secrets: [] },
        { id: "msg_1", eventType: eventType as string, body: "{}" },
        { fetch: refuse },
      );
      expect(badType).toMatchObject({ kind: "failed", error: expect.stringMatching(/webhook-event-type/) });
    }
  });

  it("fails when the SSRF guard blocks the address, directly or as a cause", async () => {
    const guard = () =>
      Object.assign(new Error("127.0.0.1 is not a public address"), { code: BLOCKED_ADDRESS_CODE });
    const direct: typeof fetch = async () => {
      throw guard();
    };
    const wrapped: typeof fetch = async () => {
      throw new TypeError("fetch failed", { cause: guard() });
    };
    for (const fetchImpl of [direct, wrapped]) {
      const outcome = await deliver({ url: "http://127.0.0.1/", token, secrets: [] }, message, {
        fetch: fetchImpl,
      });
      expect(outcome).toMatchObject({ kind: "failed", reason: "blocked_address" });
      expect(outcome.error).toMatch(/not a public address/);
    }
  });

  it("redacts the token and secrets from network errors", async () => {
    const secret = createSecret();
    const leaky: typeof fetch = async (_url, init) => {
      const headers = init?.headers as Record<string, string>;
      throw new TypeError("fetch failed", {
        cause: new Error(`refused ${headers.authorization} with ${secret}`),
      });
    };
    const outcome = await deliver({ url: "http://127.0.0.1/", token, secrets: [secret] }, message, {
      fetch: leaky,
    });
    expect(outcome).toMatchObject({ kind: "retry", reason: "network" });
    expect(outcome.error).toBe("fetch failed: refused Bearer [redacted] with [redacted]");
  });

  it("passes the exact request to an injected fetch", async () => {
    const seen: Array<[string, RequestInit]> = [];
    const recording: typeof fetch = async (url, init) => {
      seen.push([String(url), init!]);
      return new Response("ok");
    };
    await deliver({ url: "https://plants.example.com/plant/webhook", token, secrets: [] }, message, {
      fetch: recording,
    });
    expect(seen[0]![0]).toBe("https://plants.example.com/plant/webhook");
    expect(seen[0]![1]).toMatchObject({ method: "POST", redirect: "manual", body: "{}" });
    expect(seen[0]![1].signal).toBeInstanceOf(AbortSignal);
  });

  it("sends through an injected transport instead of fetch, and classifies what it answers", async () => {
    const seen: TransportRequest[] = [];
    let bodyRead = 0;
    const transport: Transport = async (request) => {
      seen.push(request);
      return {
        status: 503,
        headers: { get: (name) => (name === "retry-after" ? "7" : null) },
        readBody: async () => {
          bodyRead++;
          return `busy, token ${token}`;
        },
      };
    };
    const outcome = await deliver(
      { url: "https://plants.example.com/plant/webhook", token, secrets: [] },
      message,
      {
        transport,
        fetch: refuse,
        maxResponseBytes: 100,
        now: () => NOW,
      },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      url: "https://plants.example.com/plant/webhook",
      method: "POST",
      body: "{}",
      maxResponseBytes: 100,
    });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(bodyRead).toBe(1);
    expect(outcome).toMatchObject({ kind: "retry", status: 503, retryAfterMs: 7000 });
    expect(outcome.responseBody).toBe("busy, token [redacted]");
  });

  it("turns a transport that never answers into a timeout", async () => {
    const transport: Transport = (request) =>
      new Promise((_resolve, reject) =>
        request.signal.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    const outcome = await deliver(
      { url: "https://plants.example.com/plant/webhook", token, secrets: [] },
      message,
      {
        transport,
        timeoutMs: 30,
      },
    );
    expect(outcome).toMatchObject({ kind: "retry", error: "The attempt timed out after 30 ms." });
  });

  it("takes a TimeoutError from a transport that enforces timeoutMs itself as the attempt's timeout", async () => {
    const budgets: number[] = [];
    const timeout = () => Object.assign(new Error("deadline passed"), { name: "TimeoutError" });
    const rejecting: Transport = async (request) => {
      budgets.push(request.timeoutMs);
      throw timeout();
    };
    const target = { url: "https://plants.example.com/plant/webhook", token, secrets: [] };
    expect(await deliver(target, message, { transport: rejecting, timeoutMs: 5000 })).toMatchObject({
      kind: "retry",
      error: "The attempt timed out after 5000 ms.",
    });
    expect(budgets).toEqual([5000]);

    const slowBody: Transport = async () => ({
      status: 503,
      headers: { get: () => null },
      readBody: async () => {
        throw timeout();
      },
    });
    const outcome = await deliver(target, message, { transport: slowBody, timeoutMs: 5000 });
    expect(outcome).toMatchObject({ kind: "retry", status: 503 });
    expect(outcome.error).toMatch(/Reading the response body failed: timed out after 5000 ms\.$/);
  });

  it("hands out an already aborted signal when the transport first reads it after the deadline", async () => {
    let late: AbortSignal | undefined;
    const transport: Transport = async (request) => {
      await new Promise((r) => setTimeout(r, 60));
      late = request.signal;
      throw new Error("gave up");
    };
    const outcome = await deliver(
      { url: "https://plants.example.com/plant/webhook", token, secrets: [] },
      message,
      { transport, timeoutMs: 10 },
    );
    expect(late?.aborted).toBe(true);
    expect(outcome).toMatchObject({ kind: "retry", error: "The attempt timed out after 10 ms." });
  });
});
