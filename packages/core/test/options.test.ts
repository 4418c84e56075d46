import { describe, expect, it } from "vitest";
import { deliver } from "../src/delivery/deliver.js";
import { PlantStoreError } from "../src/errors.js";
import { createWebhookHandler, type WebhookHandlerOptions } from "../src/receive/handler.js";
import { createMemoryDedup } from "../src/receive/memory-dedup.js";
import { verify } from "../src/signing/index.js";
import { NOW_MS, SECRET, signedHeaders, TOKEN, thrown, webhookUrl } from "./helpers.js";

// Options as plain JavaScript (or process.env) hands them over: the types would refuse most of these.
const base = { tokens: [TOKEN], secrets: [SECRET], onEvent: () => {} };
const create = (extra: Record<string, unknown>) =>
  createWebhookHandler({ ...base, ...extra } as unknown as WebhookHandlerOptions);

describe("createWebhookHandler refuses invalid options when it is created", () => {
  it.each([
    ["toleranceSeconds", -1, /toleranceSeconds must be a number at least 0 \(seconds\); got -1/],
    ["toleranceSeconds", "300", /toleranceSeconds .*got a string\. Convert it first/],
    ["toleranceSeconds", Number.NaN, /toleranceSeconds .*got NaN/],
    ["toleranceSeconds", Number.POSITIVE_INFINITY, /toleranceSeconds .*got Infinity/],
    ["maxBodyBytes", -5, /maxBodyBytes must be an integer at least 1 \(bytes\); got -5/],
    ["maxBodyBytes", 0, /maxBodyBytes .*got 0/],
    ["maxBodyBytes", 1.5, /maxBodyBytes .*got 1\.5/],
    ["maxBodyBytes", "1048576", /maxBodyBytes .*got a string/],
    ["mode", "Lossless", /mode must be one of "safe", "lossless"; got a string/],
    ["path", "plant/webhook", /path must be a string starting with '\/'/],
    ["realm", 7, /realm must be a string; got 7/],
    ["now", "Date.now", /now must be a function; got a string/],
    [
      "dedup",
      new Map(),
      /dedup must be an object with the methods has\(\) and add\(\); got an instance of Map/,
    ],
    ["logger", {}, /logger must be an object with the methods warn\(\) and error\(\)/],
    ["tokens", TOKEN, /tokens must be an array .*got a string.*\[ \]/],
    ["tokens", { check: () => true }, /tokens must be an array .*or a TokenVerifier; got an object/],
    ["secrets", SECRET, /secrets must be an array of 'whsec_…' strings/],
    ["onEvent", undefined, /onEvent must be a function .*got undefined/],
  ])("%s: %s", (name, value, message) => {
    const error = thrown(() => create({ [name]: value }));
    expect(error.code).toBe("invalid_option");
    expect(error.message).toMatch(message);
    for (const secret of [TOKEN, SECRET]) expect(error.message).not.toContain(secret);
  });

  it("takes the boundaries and explicit undefined values (defaults)", async () => {
    const handler = create({ toleranceSeconds: 0, maxBodyBytes: 1, now: () => NOW_MS });
    expect(handler.maxBodyBytes).toBe(1);
    const defaults = create({ toleranceSeconds: undefined, maxBodyBytes: undefined, path: undefined });
    expect(defaults.maxBodyBytes).toBe(1024 * 1024);
    const body = '{"id":1,"name":"Fern"}';
    const headers = await signedHeaders(body);
    const answer = await create({ now: () => NOW_MS, toleranceSeconds: 0, path: null }).handle({
      method: "POST",
      path: "/anything",
      headers: (name) => headers[name],
      body: new TextEncoder().encode(body),
    });
    expect(answer.status).toBe(200);
  });
});

describe("createMemoryDedup refuses an unusable max", () => {
  it.each([0, -1, 1.5, Number.NaN, "100"])("max: %s", (max) => {
    const error = thrown(() => createMemoryDedup({ max } as unknown as { max: number }));
    expect(error.code).toBe("invalid_option");
    expect(error.message).toMatch(/^max must be an integer at least 1/);
  });
});

describe("deliver refuses invalid options instead of failing every attempt", () => {
  const target = { url: webhookUrl(), token: TOKEN, secrets: [SECRET] };
  const message = { id: "msg_1", body: "{}" };
  const transport = async () => ({ status: 200, headers: { get: () => null }, readBody: async () => "" });

  it.each([
    ["timeoutMs", -1, /timeoutMs must be a number from 1 to 2147483647 \(milliseconds\); got -1/],
    ["timeoutMs", "15000", /timeoutMs .*got a string/],
    ["timeoutMs", 2 ** 31, /timeoutMs .*got 2147483648/],
    ["maxResponseBytes", -5, /maxResponseBytes must be an integer at least 0 \(bytes\); got -5/],
    ["userAgent", "agent\r\nx-injected: 1", /userAgent must be a non-empty header value/],
    ["userAgent", "agent\0", /userAgent must be a non-empty header value/],
    ["userAgent", " ", /userAgent must be a non-empty header value/],
    ["userAgent", "bot 🌱", /userAgent must be a non-empty header value/],
    ["fetch", "fetch", /fetch must be a function; got a string/],
    ["transport", {}, /transport must be a function; got an object/],
    ["now", 5, /now must be a function; got 5/],
  ])("%s: %s", async (name, value, pattern) => {
    const options = name === "fetch" ? { fetch: value } : { transport, [name]: value };
    const error = await deliver(target, message, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ code: "invalid_option", message: expect.stringMatching(pattern) });
  });

  it.each(["café-bot/1.0", "bot/1.0\t(tabbed)"])(
    "accepts the header value %j and sends it as given",
    async (agent) => {
      let sent: string | undefined;
      const outcome = await deliver(target, message, {
        userAgent: agent,
        transport: async (request) => {
          sent = request.headers["user-agent"];
          return transport();
        },
      });
      expect(outcome.kind).toBe("delivered");
      expect(sent).toBe(agent);
    },
  );

  it("still delivers with valid options and explicit undefined values", async () => {
    const outcome = await deliver(target, message, {
      transport,
      timeoutMs: undefined,
      maxResponseBytes: 0,
      userAgent: undefined,
    });
    expect(outcome.kind).toBe("delivered");
  });
});

describe("verify refuses invalid options", () => {
  it("a clock that is not a function", async () => {
    const error = await verify({
      secrets: [SECRET],
      id: "msg_1",
      timestamp: "1700000000",
      signature: "v1,x",
      body: "{}",
      now: "now" as unknown as () => number,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "invalid_option",
      message: expect.stringMatching(/^now must be a function/),
    });
  });
});
