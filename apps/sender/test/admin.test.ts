import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_BATCH_BODY_BYTES } from "@plant-store/admin-api";
import { MAX_BATCH_EVENTS } from "@plant-store/core";
import { catalog } from "@plant-store/spec";
import { loadCatalog } from "@plant-store/spec/load";
import { Validator } from "@seriousme/openapi-schema-validator";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../../test-support/raw-http.js";
import { createSender } from "../src/index.js";
import { adminOpenApi } from "../src/openapi.js";
import { ADMIN, api, cleanup, type Running, SECRET, SENDER_BIN, start, stop, TOKEN } from "./support.js";

let sender: Running;
beforeAll(async () => {
  // No worker traffic matters here: deliveries go to a closed port and are retried far in the future.
  sender = await start(SENDER_BIN, [
    "--admin-token",
    ADMIN,
    "--db",
    ":memory:",
    "--allow-networks",
    "127.0.0.0/8",
    "--schedule",
    "3600000",
  ]);
});
afterAll(async () => {
  expect(await stop(sender)).toBe(0);
  cleanup();
});

describe("the admin API document", () => {
  it("is a valid OpenAPI 3.1 document, served at /openapi.json", async () => {
    const result = await new Validator().validate(adminOpenApi as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const served = await fetch(`${sender.url}/openapi.json`);
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(adminOpenApi)));
  });

  it("lists the answers every operation can give (auth, store, body errors)", () => {
    const paths = adminOpenApi.paths as unknown as Record<
      string,
      Record<string, { tags?: string[]; requestBody?: unknown; responses: Record<string, unknown> }>
    >;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === "parameters") continue;
        const statuses = Object.keys(op.responses);
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["408", "431"]));
        if (path.includes("{")) expect(statuses, `${method} ${path}`).toContain("414");
        if (op.tags?.includes("operations")) continue;
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["400", "401", "503"]));
        // A body can be sent to any POST, also one that expects none: it is refused as any other body is.
        if (method === "post" || method === "patch")
          expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["413", "415"]));
      }
    }
    expect(Object.keys(paths["/events"]!.post!.responses)).toContain("409");
    expect(Object.keys(paths["/subscriptions/{id}/recover"]!.post!.responses)).toContain("409");
  });

  it("answers 405 with Allow for a known path asked with another method, 404 for an unknown path", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/subscriptions", "GET, HEAD, POST"],
      ["PUT", "/subscriptions/sub_x", "DELETE, GET, HEAD, PATCH"],
      ["GET", "/deliveries/1/resend", "POST"],
      ["POST", "/healthz", "GET, HEAD"],
    ] as const) {
      const res = await api(sender.url, method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect(res.body).toEqual({ error: 405, message: expect.stringContaining(`use ${allow}`) });
    }
    const unknown = await api(sender.url, "GET", "/nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe(404);
  });

  it("the validator can fail (a broken copy is refused)", async () => {
    const broken = JSON.parse(JSON.stringify(adminOpenApi));
    broken.paths["/events"].post.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

describe("admin API over a real socket", () => {
  it("refuses a missing, wrong or malformed admin token", async () => {
    const missing = await fetch(`${sender.url}/subscriptions`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="plant-store-sender"');
    expect(await missing.json()).toEqual({
      error: 401,
      message: expect.stringContaining("admin bearer token"),
    });
    const wrong = await api(sender.url, "GET", "/subscriptions", undefined, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(wrong.status).toBe(401);
    // Another scheme carries no bearer token: 401 with a bare challenge (RFC 6750 §3).
    const basic = await api(sender.url, "GET", "/subscriptions", undefined, { authorization: "Basic abc" });
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toBe('Bearer realm="plant-store-sender"');
    const malformed = await api(sender.url, "GET", "/subscriptions", undefined, {
      authorization: "Bearer two tokens",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("www-authenticate")).toBe(
      'Bearer realm="plant-store-sender", error="invalid_request"',
    );
    for (const open of ["/healthz", "/readyz", "/metrics"])
      expect((await fetch(`${sender.url}${open}`)).status).toBe(200);
  });

  it("lists the event types it publishes at /event-types: the built-in contract's, or those of its --spec document", async () => {
    const builtIn = await api(sender.url, "GET", "/event-types");
    expect(builtIn.status).toBe(200);
    expect(builtIn.body.data).toEqual(JSON.parse(JSON.stringify(catalog)));
    expect(builtIn.body.data.map((e: { type: string }) => e.type)).toEqual(["newPlant"]);
    expect((await fetch(`${sender.url}/event-types`)).status).toBe(401);
    const own = await createSender({
      adminTokens: [ADMIN],
      worker: false,
      catalog: await loadCatalog(
        fileURLToPath(new URL("../../../test-support/fixtures/multi-webhook.yaml", import.meta.url)),
      ),
    });
    try {
      const listed = await api(await own.listen(0, "127.0.0.1"), "GET", "/event-types");
      expect(listed.body.data.map((e: { type: string; name: string }) => [e.type, e.name])).toEqual([
        ["newPlant", "New Plant"],
        ["plantSold", "Plant Sold"],
        ["inventoryChanged", "Inventory Changed"],
      ]);
    } finally {
      await own.close();
    }
  });

  it("/readyz answers 503 naming only the code while the disk runs low; the log says where", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-disk-"));
    const lines: string[] = [];
    const own = await createSender({
      adminTokens: [ADMIN],
      store: { url: join(dir, "sender.db"), minFreeDiskBytes: Number.MAX_SAFE_INTEGER },
      logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }),
    });
    const url = await own.listen(0, "127.0.0.1");
    try {
      const res = await api(url, "GET", "/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        error: 503,
        message: expect.stringMatching(/^Not ready \(disk_low\): .*log says why/),
      });
      expect(JSON.stringify(res.body)).not.toContain(dir);
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(
        expect.objectContaining({ msg: "not ready", code: "disk_low", error: expect.stringContaining(dir) }),
      );
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses two Authorization headers (400) whichever of them holds the admin token", async () => {
    for (const [first, second] of [
      [`Bearer ${ADMIN}`, `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, `Bearer ${ADMIN}`],
    ]) {
      const res = await rawRequest(sender.url, "GET", "/subscriptions", [
        `authorization: ${first}`,
        `authorization: ${second}`,
      ]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: 400, message: expect.stringContaining("more than one") });
    }
  });

  it("answers what is refused before a route runs in the { error, message } shape, and repeated query parameters 400", async () => {
    const auth = [`authorization: Bearer ${ADMIN}`];
    for (const target of [
      "/deliveries?subscriptionId=a&subscriptionId=b",
      "/deliveries?messageId=a&messageId=b",
      "/deliveries?state=failed&state=pending",
      "/subscriptions?enabled=true&enabled=false",
    ]) {
      const res = await rawRequest(sender.url, "GET", target, auth);
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        error: 400,
        message: expect.stringMatching(/is given 2 times; give it once/),
      });
    }
    const badUrl = await rawRequest(sender.url, "GET", "/messages/%ZZ", auth);
    expect(badUrl.status).toBe(400);
    expect(JSON.parse(badUrl.body)).toEqual({
      error: 400,
      message: expect.stringMatching(/percent-encoding/),
    });
    const long = await rawRequest(sender.url, "GET", `/subscriptions/${"s".repeat(150)}`, auth);
    expect(long.status).toBe(414);
    expect(JSON.parse(long.body)).toEqual({ error: 414, message: expect.stringMatching(/longer than 100/) });
    const huge = await rawRequest(sender.url, "GET", "/subscriptions", [
      ...auth,
      `x-filler: ${"f".repeat(20_000)}`,
    ]);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toEqual({
      error: 431,
      message: expect.stringMatching(/headers are too large/),
    });
    const garbage = await rawRequest(sender.url, "GET", "/subscriptions", [...auth, "bad header line"]);
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({
      error: 400,
      message: expect.stringMatching(/not valid HTTP/),
    });
  });

  it("creates a subscription, shows token and secret once, lists, gets, patches, disables, enables", async () => {
    const created = await api(sender.url, "POST", "/subscriptions", {
      url: "http://127.0.0.1:9/plant/webhook",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: "http://127.0.0.1:9/plant/webhook",
      enabled: true,
      signingSecrets: 1,
    });
    expect(created.body.token).toMatch(/^psk_/);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    const got = await api(sender.url, "GET", `/subscriptions/${id}`);
    expect(got.body).not.toHaveProperty("token");
    expect(got.body).not.toHaveProperty("secret");
    expect(JSON.stringify(got.body)).not.toContain(created.body.secret.slice(6));
    expect(
      (await api(sender.url, "GET", "/subscriptions")).body.data.map((s: { id: string }) => s.id),
    ).toContain(id);
    const patched = await api(sender.url, "PATCH", `/subscriptions/${id}`, {
      url: "http://127.0.0.1:10/plant/webhook",
    });
    expect(patched.body.url).toBe("http://127.0.0.1:10/plant/webhook");
    const disabled = await api(sender.url, "POST", `/subscriptions/${id}/disable`, { reason: "maintenance" });
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: "maintenance" });
    expect((await api(sender.url, "GET", "/subscriptions?enabled=false")).body.data).toHaveLength(1);
    expect((await api(sender.url, "POST", `/subscriptions/${id}/enable`)).body.enabled).toBe(true);
  });

  it("takes the caller's token and secret, and rotates them (the old secret keeps signing during the grace)", async () => {
    const created = await api(sender.url, "POST", "/subscriptions", {
      url: "http://127.0.0.1:9/plant/webhook",
      token: TOKEN,
      secret: SECRET,
    });
    expect(created.body).toMatchObject({ token: TOKEN, secret: SECRET });
    const id = created.body.id as string;
    const secret = await api(sender.url, "POST", `/subscriptions/${id}/rotate`, {
      kind: "secret",
      graceSeconds: 600,
    });
    expect(secret.body.secret).toMatch(/^whsec_/);
    expect((await api(sender.url, "GET", `/subscriptions/${id}`)).body.signingSecrets).toBe(2);
    const token = await api(sender.url, "POST", `/subscriptions/${id}/rotate`, { kind: "token" });
    expect(token.body.token).toMatch(/^psk_/);
    expect((await api(sender.url, "POST", `/subscriptions/${id}/rotate`, { kind: "password" })).status).toBe(
      400,
    );
  });

  it("caps the rotation grace at 7 days: 400 for more, and the old secret then stops signing at a real time", async () => {
    const { id } = (
      await api(sender.url, "POST", "/subscriptions", { url: "http://127.0.0.1:9/plant/webhook" })
    ).body;
    for (const graceSeconds of [1e20, 604_801, -1, 1.5, "60"]) {
      const res = await api(sender.url, "POST", `/subscriptions/${id}/rotate`, {
        kind: "secret",
        graceSeconds,
      });
      expect(res.status, String(graceSeconds)).toBe(400);
      expect(res.body.message).toMatch(/graceSeconds.*604800/);
    }
    expect((await api(sender.url, "GET", `/subscriptions/${id}`)).body.signingSecrets).toBe(1);
    const max = await api(sender.url, "POST", `/subscriptions/${id}/rotate`, {
      kind: "secret",
      graceSeconds: 604_800,
    });
    expect(max.status).toBe(200);
    expect((await api(sender.url, "GET", `/subscriptions/${id}`)).body.signingSecrets).toBe(2);
  });

  it.each([
    [{ url: "http://169.254.169.254/" }, /link-local/],
    [{ url: "http://10.0.0.1/" }, /private/],
    [{ url: "ftp://127.0.0.1/" }, /http or https/],
    [{ url: "http://user:pass@127.0.0.1/" }, /credentials/],
    [{ url: "not a url" }, /valid absolute URL/],
    [{}, /url is required/],
    [{ url: "http://127.0.0.1/", secret: "whsec_short" }, /secret/],
    [{ url: "http://127.0.0.1/", token: "has spaces" }, /token/],
  ])("400 for a subscription the sender cannot or must not serve: %j", async (body, message) => {
    const res = await api(sender.url, "POST", "/subscriptions", body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 400, message: expect.stringMatching(message) });
  });

  it("publishes: 202 with the message id, Idempotency-Key returns the same message, int64 ids kept exactly", async () => {
    const body = '{"id":9223372036854775807,"name":"Largest"}';
    const first = await api(sender.url, "POST", "/events", body, { "idempotency-key": "order-1" });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ messageId: expect.stringMatching(/^msg_/), duplicate: false });
    expect(first.body.deliveries).toBeGreaterThan(0);
    const again = await api(sender.url, "POST", "/events", body, { "idempotency-key": "order-1" });
    expect(again.body).toEqual({
      messageId: first.body.messageId,
      duplicate: true,
      deliveries: first.body.deliveries,
    });
    const message = await fetch(`${sender.url}/messages/${first.body.messageId}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await message.text()).toContain('"payload":{"id":9223372036854775807,"name":"Largest"}');
  });

  it("publishes a batch: 202 with one answer per event in order, duplicates by key, int64 ids kept exactly", async () => {
    const sub = await api(sender.url, "POST", "/subscriptions", {
      url: "http://127.0.0.1:9/batch",
      token: TOKEN,
    });
    expect(sub.status).toBe(201);
    const before = await api(sender.url, "POST", "/events", '{"id":1,"name":"Fern"}', {
      "idempotency-key": "b-1",
    });
    const body = `{"events":[
      {"payload":{"id":1,"name":"Fern"},"idempotencyKey":"b-1"},
      {"payload":{"id":9223372036854775806,"name":"Large"},"idempotencyKey":"b-2"},
      {"payload":{"id":9223372036854775806,"name":"Large"},"idempotencyKey":"b-2"},
      {"payload":{"id":4,"name":"Moss"},"type":"newPlant"}]}`;
    const res = await api(sender.url, "POST", "/events/batch", body);
    expect(res.status).toBe(202);
    const data = res.body.data as { messageId: string; duplicate: boolean; deliveries: number }[];
    expect(data.map((d) => d.duplicate)).toEqual([true, false, true, false]);
    expect(data[0]?.messageId).toBe(before.body.messageId);
    expect(data[2]?.messageId).toBe(data[1]?.messageId);
    expect(new Set(data.map((d) => d.messageId)).size).toBe(3);
    expect(data.every((d) => d.deliveries > 0)).toBe(true);
    const large = await fetch(`${sender.url}/messages/${data[1]?.messageId}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await large.text()).toContain('"payload":{"id":9223372036854775806,"name":"Large"}');
    const deliveries = await api(sender.url, "GET", `/deliveries?subscriptionId=${sub.body.id}`);
    expect(deliveries.body.data).toHaveLength(3);
  });

  it("refuses a batch with an invalid event at index k (422 naming each index and pointer) and stores none of it", async () => {
    const sub = await api(sender.url, "POST", "/subscriptions", {
      url: "http://127.0.0.1:9/refused",
      token: TOKEN,
    });
    const count = async () =>
      (await api(sender.url, "GET", `/deliveries?subscriptionId=${sub.body.id}`)).body.data.length as number;
    const stored = await api(sender.url, "POST", "/events", '{"id":1,"name":"Fern"}', {
      "idempotency-key": "r-1",
    });
    expect(stored.status).toBe(202);
    const events = [
      { payload: { id: 10, name: "Fern" } },
      { payload: { id: 11 } },
      { payload: { id: 12, name: "Fern" }, type: "plantEaten" },
      { payload: { id: 13, name: "Other" }, idempotencyKey: "r-1" },
      { payload: { id: 14, name: "Fern" } },
    ];
    const res = await api(sender.url, "POST", "/events/batch", { events });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(422);
    expect(res.body.message).toContain("/events/1/payload");
    expect(res.body.problems.map((p: { index: number; pointer: string }) => [p.index, p.pointer])).toEqual([
      [1, "/events/1/payload/name"],
      [2, "/events/2/type"],
    ]);
    // A key stored before for another event is found when the batch is written, and refuses it all the same.
    const reused = await api(sender.url, "POST", "/events/batch", {
      events: [events[0], events[3], events[4]],
    });
    expect(reused.status).toBe(422);
    expect(reused.body.problems).toEqual([
      { index: 1, pointer: "/events/1/idempotencyKey", message: expect.stringContaining("different event") },
    ]);
    // Envelope problems are named the same way, every one of them.
    const envelope = await api(sender.url, "POST", "/events/batch", {
      events: [{ payload: { id: 1, name: "A" }, idempotencyKey: " bad" }, { type: "newPlant" }],
    });
    expect(envelope.status).toBe(422);
    expect(envelope.body.problems.map((p: { pointer: string }) => p.pointer)).toEqual([
      "/events/0/idempotencyKey",
      "/events/1/payload",
    ]);
    expect(await count()).toBe(1);
  });

  it("413 for a batch over the event count or the byte cap; 400 for a body that is no batch", async () => {
    const many = {
      events: Array.from({ length: MAX_BATCH_EVENTS + 1 }, (_, i) => ({ payload: { id: i, name: "F" } })),
    };
    const tooMany = await api(sender.url, "POST", "/events/batch", many);
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toEqual({ error: 413, message: expect.stringContaining(`${MAX_BATCH_EVENTS}`) });
    // Judged by its Content-Length before a byte of the body is read.
    const tooBig = await rawRequest(sender.url, "POST", "/events/batch", [
      `authorization: Bearer ${ADMIN}`,
      "content-type: application/json",
      `content-length: ${MAX_BATCH_BODY_BYTES + 1}`,
    ]);
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.body)).toEqual({
      error: 413,
      message: `The body is larger than ${MAX_BATCH_BODY_BYTES} bytes.`,
    });
    // The other routes keep their own cap.
    const single = await api(sender.url, "POST", "/events", { id: 1, name: "x".repeat(100_000) });
    expect(single.status).toBe(413);
    expect(single.body.message).not.toContain(`${MAX_BATCH_BODY_BYTES}`);
    for (const body of ["[]", '{"events":"x"}', "{not json"]) {
      const res = await api(sender.url, "POST", "/events/batch", body);
      expect([400, 422], body).toContain(res.status);
      expect(res.body.error).toBe(res.status);
    }
    expect((await api(sender.url, "POST", "/events/batch", "[]")).status).toBe(400);
    expect((await api(sender.url, "POST", "/events/batch", "{not json")).status).toBe(400);
  });

  it("400 for two Idempotency-Key header lines (Node would join them into one key)", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${sender.url}/events`, { method: "POST" }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode as number, body }));
      });
      req.on("error", reject);
      req.setHeader("authorization", `Bearer ${ADMIN}`);
      req.setHeader("content-type", "application/json");
      req.setHeader("idempotency-key", ["twice-1", "twice-2"]);
      req.end('{"id":11,"name":"Ivy"}');
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toMatch(/Idempotency-Key/);
    const one = await api(sender.url, "POST", "/events", '{"id":11,"name":"Ivy"}', {
      "idempotency-key": "twice-1, twice-2",
    });
    expect(one.status).toBe(202);
  });

  it("drops a leading byte order mark and refuses a body that is not UTF-8", async () => {
    const post = (body: Buffer) =>
      fetch(`${sender.url}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body,
      });
    const withBom = await post(Buffer.from('\uFEFF{"id":12,"name":"Basil"}'));
    expect(withBom.status).toBe(202);
    const { messageId } = (await withBom.json()) as { messageId: string };
    const message = await fetch(`${sender.url}/messages/${messageId}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const text = await message.text();
    expect(text).not.toContain("\uFEFF");
    expect(JSON.parse(text).payload).toEqual({ id: 12, name: "Basil" });

    const latin1 = await post(Buffer.from('{"id":13,"name":"Caf\xe9"}', "latin1"));
    expect(latin1.status).toBe(400);
    expect(await latin1.json()).toEqual({ error: 400, message: expect.stringContaining("UTF-8") });
  });

  it.each([
    ['{"id":"1","name":"x"}', 422, /\/id/],
    ['{"id":1}', 422, /\/name/],
    ['{"id":1,', 400, /JSON/],
    ["", 400, /./],
  ])("refuses the event %j with %i", async (body, status, message) => {
    const res = await api(sender.url, "POST", "/events", body);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: status, message: expect.stringMatching(message) });
  });

  it("415 for a body that is not JSON, 404 for unknown routes, ids and messages, 400 for bad filters", async () => {
    const text = await fetch(`${sender.url}/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" },
      body: "plant",
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({ error: 415, message: expect.stringContaining("application/json") });
    expect((await api(sender.url, "GET", "/nope")).body).toEqual({ error: 404, message: expect.any(String) });
    expect((await api(sender.url, "GET", "/subscriptions/sub_missing")).status).toBe(404);
    expect((await api(sender.url, "GET", "/deliveries/999999")).status).toBe(404);
    expect((await api(sender.url, "GET", "/deliveries/abc")).status).toBe(400);
    expect((await api(sender.url, "GET", "/messages/msg_missing")).status).toBe(404);
    expect((await api(sender.url, "GET", "/deliveries?state=lost")).status).toBe(400);
    expect(
      (await api(sender.url, "POST", "/subscriptions/sub_missing/recover", { since: "yesterday" })).status,
    ).toBe(404);
  });

  it("answers only statuses its document lists for the operation asked (a sweep of edge requests)", async () => {
    const sub = await api(sender.url, "POST", "/subscriptions", { url: "http://127.0.0.1:9/plant/webhook" });
    const id = sub.body.id as string;
    const auth = { authorization: `Bearer ${ADMIN}` };
    const paths = adminOpenApi.paths as unknown as Record<string, Record<string, { responses: object }>>;
    const documented = (method: string, path: string) => {
      const template = Object.keys(paths).find((t) =>
        new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path.split("?")[0] as string),
      );
      return Object.keys(paths[template as string]?.[method.toLowerCase()]?.responses ?? {});
    };
    const probes: [string, string, RequestInit][] = [
      [
        "POST",
        `/subscriptions/${id}/enable`,
        { headers: { ...auth, "content-type": "text/plain" }, body: "x" },
      ],
      [
        "POST",
        `/deliveries/1/resend`,
        { headers: { ...auth, "content-type": "application/json" }, body: "x".repeat(70_000) },
      ],
      ["GET", `/subscriptions/${"s".repeat(101)}`, { headers: auth }],
      [
        "POST",
        `/subscriptions/${id}/disable`,
        { headers: { ...auth, "content-type": "application/json" }, body: '{"reason":5}' },
      ],
      [
        "POST",
        `/subscriptions/${id}/rotate`,
        {
          headers: { ...auth, "content-type": "application/json" },
          body: '{"kind":"token","graceSeconds":-5}',
        },
      ],
      [
        "POST",
        `/subscriptions/${id}/recover`,
        {
          headers: { ...auth, "content-type": "application/json" },
          body: '{"since":"2026-02-30T10:00:00Z"}',
        },
      ],
      ["GET", "/deliveries/1234567890123456", { headers: auth }],
      ["GET", "/deliveries/12345678901234567890", { headers: auth }],
      ["GET", "/healthz", {}],
      ["GET", "/readyz", {}],
      ["GET", "/openapi.json", {}],
    ];
    for (const [method, path, init] of probes) {
      const res = await fetch(`${sender.url}${path}`, { method, ...init });
      expect(documented(method, path), `${method} ${path.slice(0, 60)}`).toContain(String(res.status));
      const body = (await res.json()) as { error?: number };
      if (res.status >= 400) expect(body.error, `${method} ${path.slice(0, 60)}`).toBe(res.status);
    }
    expect(await (await fetch(`${sender.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${sender.url}/readyz`)).json()).toEqual({
      status: "ready",
      backend: "sqlite",
    });
  });

  it("refuses fields of the wrong type or range instead of ignoring them", async () => {
    const sub = await api(sender.url, "POST", "/subscriptions", { url: "http://127.0.0.1:9/plant/webhook" });
    const id = sub.body.id as string;
    for (const reason of [5, "", "r".repeat(1001), null]) {
      const res = await api(sender.url, "POST", `/subscriptions/${id}/disable`, { reason });
      expect(res.status, JSON.stringify(reason).slice(0, 20)).toBe(400);
      expect(res.body.message).toMatch(/reason/);
    }
    expect((await api(sender.url, "GET", `/subscriptions/${id}`)).body.enabled).toBe(true);
    const graced = await api(sender.url, "POST", `/subscriptions/${id}/rotate`, {
      kind: "token",
      graceSeconds: 60,
    });
    expect(graced.status).toBe(400);
    expect(graced.body.message).toMatch(/secrets only/);
    expect((await api(sender.url, "GET", "/deliveries/1234567890123456")).status).toBe(404);
  });

  it("lists deliveries by state and subscription, with attempts, and recovers since a time", async () => {
    const sub = await api(sender.url, "POST", "/subscriptions", { url: "http://127.0.0.1:9/plant/webhook" });
    await api(sender.url, "POST", "/events", '{"id":5,"name":"Aloe"}');
    const page = await api(sender.url, "GET", `/deliveries?subscriptionId=${sub.body.id}&limit=10`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    const delivery = page.body.data[0];
    expect(delivery).toMatchObject({ subscriptionId: sub.body.id, state: expect.any(String) });
    expect((await api(sender.url, "GET", `/deliveries/${delivery.id}`)).body.id).toBe(delivery.id);
    expect((await api(sender.url, "GET", `/deliveries/${delivery.id}/attempts`)).body).toEqual({
      data: expect.any(Array),
    });
    const recover = await api(sender.url, "POST", `/subscriptions/${sub.body.id}/recover`, {
      since: "2020-01-01T00:00:00Z",
    });
    expect(recover.body).toEqual({ requeued: expect.any(Number) });
    // RFC 3339, strictly: Date.parse would take the 30th of February as March 2, and 24:00 as the next day.
    const leap = await api(sender.url, "POST", `/subscriptions/${sub.body.id}/recover`, {
      since: "2016-12-31T23:59:60Z",
    });
    expect(leap.status).toBe(200);
    for (const since of [
      "soon",
      0,
      "0",
      "1",
      "2026-11-22",
      "2026-11-22 10:00:00",
      null,
      "2026-02-30T10:00:00Z",
      "2026-02-10T24:00:00Z",
    ]) {
      const res = await api(sender.url, "POST", `/subscriptions/${sub.body.id}/recover`, { since });
      expect(res.status, JSON.stringify(since)).toBe(400);
      expect(res.body.message).toMatch(/RFC 3339/);
    }
    for (const limit of ["0", "5000", "1001", "-1", "x"]) {
      const res = await api(sender.url, "GET", `/deliveries?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.message).toBe("limit must be 1 to 1000.");
    }
    expect((await api(sender.url, "GET", "/deliveries?limit=1000")).status).toBe(200);
  });
});
