import { createHmac } from "node:crypto";
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createFetchHandler } from "../src/adapters/fetch.js";
import type { WebhookHandlerOptions } from "../src/receive/handler.js";
import { createMemoryDedup, type ReceivedEvent } from "../src/receive/index.js";
import { createKeyPair, signatureHeader } from "../src/signing/index.js";
import { NOW_MS, NOW_S, SECRET, signedHeaders, TOKEN, webhookUrl } from "./helpers.js";

const PLANT = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';

let events: ReceivedEvent<{ id: unknown }>[];
let fail: Error | null;
function app(extra: Record<string, unknown> = {}) {
  return createFetchHandler({
    tokens: [TOKEN],
    secrets: [SECRET],
    now: () => NOW_MS,
    dedup: createMemoryDedup(),
    onEvent: (event: ReceivedEvent<{ id: unknown }>) => {
      if (fail) throw fail;
      events.push(event);
    },
    ...extra,
  } as WebhookHandlerOptions);
}
beforeEach(() => {
  events = [];
  fail = null;
});

async function post(
  handler: (r: Request) => Promise<Response>,
  body: string,
  headers: Record<string, string>,
  init: RequestInit = {},
) {
  const res = await handler(new Request(webhookUrl(), { method: "POST", body, headers, ...init }));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

function expectError(r: { status: number; body: unknown }, status: number, pattern: RegExp) {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ error: status, message: expect.stringMatching(pattern) });
}

describe("receive pipeline over Fetch (every status code of the contract)", () => {
  it("200: a signed, valid New Plant is handed to onEvent with its exact bytes", async () => {
    const r = await post(app(), PLANT, await signedHeaders(PLANT));
    expect(r.status).toBe(200);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toEqual({ id: 1n, name: "Monstera deliciosa", tag: "tropical" });
    expect(new TextDecoder().decode(events[0]?.body)).toBe(PLANT);
    expect(events[0]?.id).toBe("msg_test_1");
    expect(events[0]?.timestamp).toBe(NOW_S);
    expect(events[0]?.headers.authorization).toBeUndefined();
  });

  it("200: onEvent gets the kept headers the request has, in their order, and no credential", async () => {
    const signed = await signedHeaders(PLANT);
    const r = await post(app(), PLANT, {
      "x-request-id": "r-1",
      "user-agent": "plant-test/1",
      ...signed,
      "webhook-event-type": "newPlant",
      cookie: "session=1",
    });
    expect(r.status).toBe(200);
    expect(Object.entries(events[0]?.headers ?? {})).toEqual([
      ["webhook-event-type", "newPlant"],
      ["webhook-id", signed["webhook-id"]],
      ["webhook-timestamp", signed["webhook-timestamp"]],
      ["webhook-signature", signed["webhook-signature"]],
      ["content-type", signed["content-type"]],
      ["user-agent", "plant-test/1"],
    ]);
  });

  it("a verifier spread from the built-in one with verify replaced is asked through its verify", async () => {
    const { createTokenVerifier } = await import("../src/auth/index.js");
    const base = createTokenVerifier([TOKEN]);
    const handler = app({ tokens: { ...base, verify: async () => false } });
    expectError(await post(handler, PLANT, await signedHeaders(PLANT)), 401, /not accepted/);
    expect(events).toHaveLength(0);
  });

  it("a custom token verifier may answer with a promise or another thenable: its verdict stands", async () => {
    const thenable = (accepted: boolean) => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the case under test
      then: (resolve: (value: boolean) => void) => setTimeout(() => resolve(accepted), 1),
    });
    for (const answer of [
      (token: string) => Promise.resolve(token === TOKEN),
      (token: string) => thenable(token === TOKEN) as unknown as Promise<boolean>,
    ]) {
      const handler = app({ tokens: { verify: answer } });
      const ok = await post(handler, PLANT, await signedHeaders(PLANT, { id: `msg_${events.length}` }));
      expect(ok.status).toBe(200);
      const refused = await post(handler, PLANT, await signedHeaders(PLANT, { token: "psk_not_this_one" }));
      expectError(refused, 401, /not accepted/);
    }
    expect(events).toHaveLength(2);
  });

  it("200 for a duplicate webhook-id, without a second effect", async () => {
    const handler = app();
    const headers = await signedHeaders(PLANT);
    expect((await post(handler, PLANT, headers)).status).toBe(200);
    const again = await post(handler, PLANT, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("webhook-duplicate")).toBe("true");
    expect(events).toHaveLength(1);
  });

  describe("concurrent deliveries of one webhook-id (one handler, a dedup store)", () => {
    const slow = (fails: boolean[]) => {
      let calls = 0;
      let running = 0;
      let mostRunning = 0;
      const handler = app({
        onEvent: async (event: ReceivedEvent<{ id: unknown }>) => {
          const failing = fails[calls++] ?? false;
          mostRunning = Math.max(mostRunning, ++running);
          await new Promise((resolve) => setTimeout(resolve, 100));
          running--;
          if (failing) throw new Error("database unavailable");
          events.push(event);
        },
      });
      return { handler, calls: () => calls, mostRunning: () => mostRunning };
    };

    it("the second waits for the first and answers as a duplicate, without calling onEvent", async () => {
      const { handler, calls } = slow([]);
      const headers = await signedHeaders(PLANT);
      const [first, second] = await Promise.all([
        post(handler, PLANT, headers),
        post(handler, PLANT, headers),
      ]);
      expect(first.status).toBe(200);
      expect(first.headers.get("webhook-duplicate")).toBeNull();
      expect(second.status).toBe(200);
      expect(second.headers.get("webhook-duplicate")).toBe("true");
      expect(calls()).toBe(1);
      expect(events).toHaveLength(1);
    });

    it("when the first fails, the waiting one runs onEvent itself", async () => {
      const { handler, calls } = slow([true]);
      const headers = await signedHeaders(PLANT);
      const results = await Promise.all([1, 2, 3].map(() => post(handler, PLANT, headers)));
      const answers = results.map((r) => `${r.status} ${r.headers.get("webhook-duplicate")}`);
      expect(answers.sort()).toEqual(["200 null", "200 true", "503 null"]);
      expect(calls()).toBe(2);
      expect(events).toHaveLength(1);
    });

    it("a first request that never settles holds its id for 10 s at most; then a retry runs onEvent itself", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      try {
        let calls = 0;
        const handler = app({
          onEvent: (event: ReceivedEvent<{ id: unknown }>) => {
            if (calls++ === 0) return new Promise(() => {}); // a write stuck on a dead connection
            events.push(event);
          },
        });
        const headers = await signedHeaders(PLANT);
        void post(handler, PLANT, headers);
        let retried: Awaited<ReturnType<typeof post>> | undefined;
        const retry = post(handler, PLANT, headers).then((r) => {
          retried = r;
        });
        await vi.advanceTimersByTimeAsync(9_000);
        expect(retried).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1_001);
        await retry;
        expect(retried?.status).toBe(200);
        expect(retried?.headers.get("webhook-duplicate")).toBeNull();
        expect(calls).toBe(2);
        // The next one finds it stored (the stuck request's slot no longer blocks the id).
        const third = await post(handler, PLANT, headers);
        expect(third.headers.get("webhook-duplicate")).toBe("true");
        expect(calls).toBe(2);
      } finally {
        vi.useRealTimers();
      }
    });

    it("different ids still run side by side", async () => {
      const { handler, calls, mostRunning } = slow([]);
      const results = await Promise.all(
        ["msg_a", "msg_b", "msg_c"].map(async (id) =>
          post(handler, PLANT, await signedHeaders(PLANT, { id })),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(results.every((r) => r.headers.get("webhook-duplicate") === null)).toBe(true);
      expect(calls()).toBe(3);
      expect(mostRunning()).toBe(3);
    });
  });

  it("200 duplicate reported by onEvent itself (a deduplicating store)", async () => {
    const handler = createFetchHandler({ tokens: [TOKEN], onEvent: () => ({ duplicate: true }) });
    const r = await handler(
      new Request(webhookUrl(), {
        method: "POST",
        body: PLANT,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "webhook-id": "x" },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("webhook-duplicate")).toBe("true");
  });

  it("400: malformed JSON", async () => {
    const body = '{"id":1,"name":';
    expectError(await post(app(), body, await signedHeaders(body)), 400, /JSON/);
    expect(events).toHaveLength(0);
  });

  it("400: malformed signature header", async () => {
    const headers = { ...(await signedHeaders(PLANT)), "webhook-signature": "not-a-signature" };
    expectError(await post(app(), PLANT, headers), 400, /signature/i);
  });

  it("200: a signed webhook-id containing dots (the Standard Webhooks reference accepts them)", async () => {
    const r = await post(app(), PLANT, await signedHeaders(PLANT, { id: "evt.2024.1" }));
    expect(r.status).toBe(200);
    expect(events[0]?.id).toBe("evt.2024.1");
  });

  it("400: webhook-id with a space or over 256 characters", async () => {
    const signature = `v1,${Buffer.alloc(32, 7).toString("base64")}`;
    for (const id of ["msg 1", "m".repeat(257)]) {
      const headers = { ...(await signedHeaders(PLANT)), "webhook-id": id, "webhook-signature": signature };
      expectError(await post(app(), PLANT, headers), 400, /webhook-id/i);
    }
    expect(events).toHaveLength(0);
  });

  it("400: malformed Authorization header, with an invalid_request challenge", async () => {
    const headers = { ...(await signedHeaders(PLANT)), authorization: "Bearer two tokens" };
    const r = await post(app(), PLANT, headers);
    expectError(r, 400, /Authorization/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store", error="invalid_request"');
  });

  it("401: missing bearer token, with a challenge and no error attribute", async () => {
    const { authorization: _omit, ...headers } = await signedHeaders(PLANT);
    const r = await post(app(), PLANT, headers);
    expectError(r, 401, /Missing bearer token/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
  });

  it("401: wrong bearer token, with error=invalid_token", async () => {
    const r = await post(app(), PLANT, await signedHeaders(PLANT, { token: "psk_wrong_token" }));
    expectError(r, 401, /not accepted/);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store", error="invalid_token"');
    expect(JSON.stringify(r.body)).not.toContain("psk_wrong_token");
  });

  it("401: signature made with another secret", async () => {
    const other = "whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBvZiAzMiBieXRlcyE=";
    const r = await post(app(), PLANT, await signedHeaders(PLANT, { secret: other }));
    expectError(r, 401, /signature/i);
    expect(JSON.stringify(r.body)).not.toContain(SECRET.slice(6));
  });

  it("401: body changed after signing", async () => {
    const headers = await signedHeaders(PLANT);
    expectError(await post(app(), PLANT.replace("Monstera", "Monsterb"), headers), 401, /signature/i);
  });

  it("401: stale and future timestamps", async () => {
    const stale = await signedHeaders(PLANT, { timestamp: NOW_S - 301 });
    expectError(await post(app(), PLANT, stale), 401, /old|stale|tolerance/i);
    const future = await signedHeaders(PLANT, { timestamp: NOW_S + 301 });
    expectError(await post(app(), PLANT, future), 401, /future/i);
  });

  it("401: signature headers missing while secrets are configured", async () => {
    const r = await post(app(), PLANT, {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
    });
    expectError(r, 401, /requires signed webhooks/);
  });

  it("every signature 401 carries a WWW-Authenticate challenge (RFC 9110 §15.5.2)", async () => {
    const other = "whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBvZiAzMiBieXRlcyE=";
    const cases = [
      await signedHeaders(PLANT, { secret: other }),
      await signedHeaders(PLANT, { timestamp: NOW_S - 301 }),
      { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ];
    for (const headers of cases) {
      const r = await post(app(), PLANT, headers);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
    }
  });

  it("415: a compressed body (Content-Encoding other than identity), with Accept-Encoding: identity", async () => {
    for (const encoding of ["gzip", "br", "gzip, identity"]) {
      const headers = { ...(await signedHeaders(PLANT)), "content-encoding": encoding };
      const r = await post(app(), PLANT, headers);
      expectError(r, 415, /uncompressed/);
      expect(r.headers.get("accept-encoding")).toBe("identity");
    }
    const identity = { ...(await signedHeaders(PLANT)), "content-encoding": "identity" };
    expect((await post(app(), PLANT, identity)).status).toBe(200);
  });

  it("404: unknown path", async () => {
    const res = await app()(new Request("http://receiver.test/nope", { method: "POST", body: PLANT }));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 404, message: expect.stringContaining("/plant/webhook") });
  });

  it("405: wrong method, with Allow: POST", async () => {
    const res = await app()(new Request(webhookUrl(), { method: "GET" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({ error: 405, message: expect.stringContaining("POST") });
  });

  it("413: body over the cap, whether declared or streamed", async () => {
    const handler = app({ maxBodyBytes: 64 });
    const big = JSON.stringify({ id: 1, name: "x".repeat(100) });
    expectError(await post(handler, big, await signedHeaders(big)), 413, /larger than 64 bytes/);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await handler(
      new Request(webhookUrl(), {
        method: "POST",
        body: stream,
        headers: await signedHeaders(big),
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });

  it("415: not JSON, or no content type", async () => {
    const headers = { ...(await signedHeaders(PLANT)), "content-type": "text/plain" };
    expectError(await post(app(), PLANT, headers), 415, /application\/json/);
    const latin1 = { ...(await signedHeaders(PLANT)), "content-type": "application/json; charset=latin1" };
    expectError(await post(app(), PLANT, latin1), 415, /application\/json/);
    const res = await app()(new Request(webhookUrl(), { method: "POST", body: new Uint8Array([1]) }));
    expect(res.status).toBe(415);
  });

  it("422: schema violation, naming the JSON pointer", async () => {
    const body = '{"id":1,"tag":"x"}';
    expectError(await post(app(), body, await signedHeaders(body)), 422, /\/name/);
  });

  it("422: id beyond 2^53 in safe mode names /id and the lossless option; the default (lossless) takes it", async () => {
    const body = '{"id":9007199254740993,"name":"Big"}';
    expectError(
      await post(app({ mode: "safe" }), body, await signedHeaders(body)),
      422,
      /\/id[\s\S]*lossless/,
    );
    const lossless = app();
    expect((await post(lossless, body, await signedHeaders(body))).status).toBe(200);
    expect(events[0]?.payload.id).toBe(9007199254740993n);
  });

  it("503: onEvent throws — never a 200, and the retry is not mistaken for a duplicate", async () => {
    const handler = app();
    const headers = await signedHeaders(PLANT);
    fail = new Error("disk full");
    const r = await post(handler, PLANT, headers);
    expectError(r, 503, /retry/i);
    expect(JSON.stringify(r.body)).not.toContain("disk full");
    fail = null;
    const retry = await post(handler, PLANT, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("webhook-duplicate")).toBeNull();
    expect(events).toHaveLength(1);
  });

  it("503: the dedup store fails", async () => {
    const handler = app({
      dedup: {
        has: () => Promise.reject(new Error("redis down")),
        add: () => {},
      },
    });
    expectError(await post(handler, PLANT, await signedHeaders(PLANT)), 503, /retry/i);
    expect(events).toHaveLength(0);
  });

  it("without secrets, unsigned deliveries with a bearer token are accepted", async () => {
    const handler = app({ secrets: undefined });
    const r = await post(handler, PLANT, {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
    });
    expect(r.status).toBe(200);
    expect(events[0]?.id).toBeNull();
    // Nothing checks a signature here, yet a sender's signature header still travels with the event, as sent.
    const kept = await post(handler, PLANT, {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "webhook-signature": "v1,not-checked",
      "user-agent": "plant-sender/1",
    });
    expect(kept.status).toBe(200);
    expect(Object.entries(events.at(-1)?.headers ?? {})).toEqual([
      ["webhook-signature", "v1,not-checked"],
      ["content-type", "application/json"],
      ["user-agent", "plant-sender/1"],
    ]);
  });

  it("a webhook-timestamp reads the same signed or not: digits up to 2^53, leading zeros allowed", async () => {
    const base = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const unsigned = app({ secrets: undefined });
    const padded = `000${NOW_S}`; // 13 digits, a valid unix time
    expect((await post(unsigned, PLANT, { ...base, "webhook-timestamp": padded })).status).toBe(200);
    expect(events.at(-1)?.timestamp).toBe(NOW_S);
    const signed = app();
    const mac = createHmac("sha256", Buffer.from(SECRET.slice("whsec_".length), "base64"))
      .update(`msg_padded.${padded}.${PLANT}`)
      .digest("base64");
    const headers = {
      ...base,
      "webhook-id": "msg_padded",
      "webhook-timestamp": padded,
      "webhook-signature": `v1,${mac}`,
    };
    expect((await post(signed, PLANT, headers)).status).toBe(200);
    for (const bad of ["1e9", "-1", "9".repeat(17), "1.5"]) {
      expectError(await post(unsigned, PLANT, { ...base, "webhook-timestamp": bad }), 400, /timestamp/);
    }
  });

  it("no input produces a 5xx or a throw (property)", async () => {
    const handler = app({ maxBodyBytes: 512 });
    const header = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.constantFrom("application/json", `Bearer ${TOKEN}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
        fc.constantFrom("/plant/webhook", "/", "/plant/webhook/x", "/%2e%2e"),
        fc.record({
          authorization: header,
          "content-type": header,
          "webhook-id": header,
          "webhook-timestamp": fc.oneof(fc.constant(undefined), fc.string(), fc.nat().map(String)),
          "webhook-signature": header,
        }),
        fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 600 })),
        async (method, path, rawHeaders, body) => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(rawHeaders)) {
            if (v === undefined) continue;
            try {
              headers.set(k, v);
            } catch {
              // Invalid header values cannot even be put on a Request.
            }
          }
          const init: RequestInit = { method, headers };
          if (method !== "GET") init.body = body;
          const res = await handler(new Request(`http://receiver.test${path}`, init));
          expect(res.status).toBeLessThan(500);
          const text = await res.text();
          if (res.status !== 200)
            expect(JSON.parse(text)).toEqual({ error: res.status, message: expect.any(String) });
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("receive pipeline with ed25519 public keys (v1a)", () => {
  it("accepts a v1a signature from a configured key, refuses one from another key, and takes both schemes at once", async () => {
    const [current, previous, stranger] = await Promise.all([
      createKeyPair(),
      createKeyPair(),
      createKeyPair(),
    ]);
    const keyed = app({ secrets: undefined, publicKeys: [previous.publicKey, current.publicKey] });
    const headers = async (privateKeys: string[], secrets: string[] = []) => ({
      ...(await signedHeaders(PLANT)),
      "webhook-signature": await signatureHeader({
        secrets,
        privateKeys,
        id: "msg_test_1",
        timestamp: NOW_S,
        body: PLANT,
      }),
    });
    expect((await post(keyed, PLANT, await headers([current.privateKey]))).status).toBe(200);
    expectError(
      await post(keyed, PLANT, await headers([stranger.privateKey])),
      401,
      /No v1a \(ed25519\) signature matches/,
    );
    // A v1 signature alone means nothing to a receiver holding only public keys.
    expectError(await post(keyed, PLANT, await signedHeaders(PLANT)), 401, /none of version v1a/);
    const both = app({ publicKeys: [current.publicKey] });
    expect((await post(both, PLANT, await headers([stranger.privateKey], [SECRET]))).status).toBe(200);
    expect((await post(both, PLANT, await headers([current.privateKey]))).status).toBe(200);
    // The last delivery repeats the webhook-id of the one before on the same receiver: a duplicate, stored once.
    expect(events).toHaveLength(2);
  });

  it("refuses a bad public key when the handler is created", () => {
    expect(() => app({ publicKeys: ["whpk_short"] })).toThrow(
      expect.objectContaining({ code: "invalid_key" }),
    );
    expect(() => app({ publicKeys: "whpk_x" })).toThrow(/publicKeys must be an array/);
  });
});

describe("the outcome travels as a value on every response", () => {
  it("stored, duplicate, and rejected with the refusal's own message as the reason", async () => {
    const { createWebhookHandler } = await import("../src/receive/handler.js");
    const seen = new Set<string>();
    const handler = createWebhookHandler({
      tokens: [TOKEN],
      onEvent: (event) => {
        const duplicate = seen.has(event.id ?? "");
        seen.add(event.id ?? "");
        return { duplicate };
      },
    });
    const request = (headers: Record<string, string>, body = PLANT) => ({
      method: "POST",
      path: "/plant/webhook",
      headers: (name: string) => headers[name],
      body: new TextEncoder().encode(body),
    });
    const good = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "webhook-id": "msg_1",
    };
    expect((await handler.handle(request(good))).outcome).toEqual({ kind: "stored" });
    expect((await handler.handle(request(good))).outcome).toEqual({ kind: "duplicate" });
    const refused = await handler.handle(request({ ...good, authorization: "Bearer nope" }));
    expect(refused.status).toBe(401);
    expect(refused.outcome).toEqual({ kind: "rejected", reason: JSON.parse(refused.body).message });
    const invalid = await handler.handle(request(good, '{"id":1}'));
    expect(invalid.status).toBe(422);
    expect(invalid.outcome.kind).toBe("rejected");
    expect(invalid.outcome).toEqual({ kind: "rejected", reason: JSON.parse(invalid.body).message });
  });
});
