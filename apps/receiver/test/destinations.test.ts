import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createReceiverAdminClient } from "@plant-store/admin-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../test-support/processes.js";
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

let receiver: Running;
let rx: ReturnType<typeof createReceiverAdminClient>;
/** The service the destinations point at: what it received (webhook-ids in order), and whether it accepts. */
const service = { received: [] as string[], accepting: true, url: "" };
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    service.received.push(String(req.headers["webhook-id"]));
    res.writeHead(service.accepting ? 200 : 503).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const db = join(tempDir(), "receiver.db");
  // One attempt per round (--schedule 0): a refused forward is failed at once, so every state is reached quickly.
  receiver = await startReceiver([
    ...["--token", TOKEN, "--secret", SECRET, "--admin-token", ADMIN, "--db", db],
    ...["--allow-networks", "127.0.0.0/8", "--schedule", "0"],
  ]);
  rx = createReceiverAdminClient({ baseUrl: receiver.url, token: ADMIN });
}, 30_000);
afterAll(async () => {
  receiver?.child.kill("SIGTERM");
  await receiver?.exited;
  await new Promise((resolve) => server.close(resolve));
  cleanup();
});

const send = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${receiver.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Accepts one signed event at the receiver; returns its webhook-id. */
async function deliverEvent(id: number): Promise<string> {
  const body = JSON.stringify({ id, name: `Plant ${id}` });
  const headers = await signedHeaders(body, { id: `msg_${id}` });
  expect((await post(receiver.url, body, headers)).status).toBe(200);
  return `msg_${id}`;
}

/** Waits until the service received `id` `times` times. */
const received = (id: string, times = 1) =>
  until(() => service.received.filter((seen) => seen === id).length >= times, 15_000);

/** Waits until the destination holds `n` forwards in `state`. */
const forwardsIn = (id: string, state: "delivered" | "failed", n: number) =>
  until(async () => {
    const page = await rx.call("listForwards", { params: { id }, query: { state } });
    return page.ok && page.value.data.length === n;
  }, 15_000);

describe("the destinations API over a real socket", () => {
  it("refuses bad input with 400 and the reason, unknown ids with 404, a taken name with 409", async () => {
    for (const [url, reason] of [
      ["ftp://svc.internal/hooks", /http/],
      ["http://user:pw@svc.internal/hooks", /credential/i],
      ["http://169.254.169.254/latest", /metadata|link-local/i],
    ] as const) {
      const res = await send("POST", "/destinations", { name: `bad-${url.length}`, url });
      expect(res.status, url).toBe(400);
      expect(res.body.message).toMatch(reason);
    }
    const types = await send("POST", "/destinations", {
      name: "t",
      url: "http://svc.internal/",
      eventTypes: ["nope"],
    });
    expect(types.status).toBe(400);
    expect(types.body.message).toMatch(/newPlant/);
    expect((await send("POST", "/destinations", { url: "http://svc.internal/" })).status).toBe(400);
    // v1a needs the receiver's private key, which this one was not given.
    const v1a = await send("POST", "/destinations", {
      name: "k",
      url: "http://svc.internal/",
      signing: "both",
    });
    expect(v1a.status).toBe(400);
    expect(v1a.body.message).toMatch(/needs an ed25519 private key.*--forward-private-key/);
    const scheme = await send("POST", "/destinations", {
      name: "k",
      url: "http://svc.internal/",
      signing: "v2",
    });
    expect(scheme.status).toBe(400);
    expect(scheme.body.message).toMatch(/signing must be one of symmetric, asymmetric, both/);
    expect((await send("GET", "/destinations/dst_missing")).status).toBe(404);
    expect((await send("POST", "/destinations/dst_missing/pause")).status).toBe(404);
    expect((await send("PUT", "/destinations")).status).toBe(405);
    const first = await send("POST", "/destinations", { name: "dup", url: "http://svc.internal/a" });
    expect(first.status).toBe(201);
    const again = await send("POST", "/destinations", { name: "dup", url: "http://svc.internal/b" });
    expect(again.status).toBe(409);
    expect((await send("DELETE", `/destinations/${first.body.id}`)).body).toEqual({
      id: first.body.id,
      deleted: true,
    });
    expect((await send("DELETE", `/destinations/${first.body.id}`)).status).toBe(404);
  });

  it("creates, lists, updates, rotates and reads the secret, pauses and resumes through the typed client", async () => {
    const created = await rx.call("createDestination", {
      // The service's own credential: a destination may set Authorization (the provider's is never forwarded).
      body: {
        name: "orders",
        url: `${service.url}?key=v`,
        headers: { "x-api-key": "inner", Authorization: "Bearer inner-service" },
      },
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({
      name: "orders",
      state: "active",
      signing: "symmetric",
      depth: 0,
    });
    expect([...created.value.headerNames].sort()).toEqual(["authorization", "x-api-key"]);
    expect(created.value.secret).toMatch(/^whsec_/);
    const id = created.value.id;
    const secret = await rx.call("getDestinationSecret", { params: { id } });
    expect(secret).toMatchObject({ ok: true, value: { secret: created.value.secret } });
    const rotated = await rx.call("rotateDestinationSecret", { params: { id }, body: { graceSeconds: 60 } });
    if (!rotated.ok) throw new Error(JSON.stringify(rotated));
    expect(rotated.value.secret).not.toBe(created.value.secret);
    expect(await rx.call("getDestinationSecret", { params: { id } })).toMatchObject({ value: rotated.value });
    expect(await rx.call("getDestination", { params: { id } })).toMatchObject({
      value: { signingSecrets: 2 },
    });
    const updated = await rx.call("updateDestination", {
      params: { id },
      body: { ordered: true, rateLimit: 5 },
    });
    expect(updated).toMatchObject({ ok: true, value: { ordered: true, rateLimit: 5 } });
    const paused = await rx.call("pauseDestination", { params: { id } });
    expect(paused).toMatchObject({ ok: true, value: { state: "paused", paused: true } });
    await deliverEvent(1);
    const list = await rx.call("listDestinations", {});
    if (!list.ok) throw new Error(JSON.stringify(list));
    const orders = list.value.data.find((d) => d.id === id);
    expect(orders).toMatchObject({ state: "paused", depth: 1 });
    expect(orders?.oldestPendingAt).not.toBeNull();
    expect(service.received).not.toContain("msg_1"); // paused: queued, not sent
    expect(await rx.call("resumeDestination", { params: { id } })).toMatchObject({
      value: { state: "active" },
    });
    await received("msg_1");
    await forwardsIn(id, "delivered", 1);
    expect(await rx.call("getDestination", { params: { id } })).toMatchObject({
      value: { depth: 0, lagSeconds: 0 },
    });
    await rx.call("deleteDestination", { params: { id } });
  });

  it("lists an event's forwards with their attempts, and replays by event id, since a time, and the failed ones", async () => {
    const created = await rx.call("createDestination", {
      body: { name: "replays", url: service.url },
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const id = created.value.id;
    const events = [await deliverEvent(10), await deliverEvent(11)];
    await forwardsIn(id, "delivered", 2);
    const before = new Date().toISOString();
    service.accepting = false;
    await deliverEvent(12);
    await forwardsIn(id, "failed", 1);
    service.accepting = true;

    const forwards = await rx.call("listEventForwards", { params: { id: events[0] as string } });
    if (!forwards.ok) throw new Error(JSON.stringify(forwards));
    expect(forwards.value.data).toHaveLength(1);
    expect(forwards.value.data[0]).toMatchObject({ destinationId: id, state: "delivered" });
    expect(forwards.value.data[0]?.attemptLog).toMatchObject([{ attempt: 1, status: 200 }]);
    expect(forwards.value.processedAt).not.toBeNull();
    const failedPage = await rx.call("listForwards", { params: { id }, query: { state: "failed" } });
    if (!failedPage.ok) throw new Error(JSON.stringify(failedPage));
    expect(failedPage.value.data).toHaveLength(1);
    const attempts = await rx.call("listForwardAttempts", {
      params: { id: String(failedPage.value.data[0]?.id) },
    });
    expect(attempts).toMatchObject({ ok: true, value: { data: [{ status: 503 }] } });

    const replay = (body: Parameters<typeof rx.call<"replayDestination">>[1]["body"]) =>
      rx.call("replayDestination", { params: { id }, body });
    expect(await replay({ eventId: events[1] as string })).toMatchObject({
      ok: true,
      value: { requeued: 1 },
    });
    await received("msg_11", 2);
    await forwardsIn(id, "delivered", 2);
    expect(await replay({ failed: true })).toMatchObject({ ok: true, value: { requeued: 1 } });
    await received("msg_12", 2);
    await forwardsIn(id, "delivered", 3);
    expect(await replay({ since: before })).toMatchObject({ ok: true, value: { requeued: 1 } });
    await received("msg_12", 3);
    await forwardsIn(id, "delivered", 3);
    expect(await replay({ since: "2000-01-01T00:00:00Z" })).toMatchObject({
      ok: true,
      value: { requeued: 3 },
    });
    await Promise.all([received("msg_10", 2), received("msg_11", 3), received("msg_12", 4)]);

    expect(await replay({ eventId: "msg_unknown" })).toMatchObject({ ok: false, status: 404 });
    expect(await send("POST", `/destinations/${id}/replay`, {})).toMatchObject({ status: 400 });
    expect(await send("POST", `/destinations/${id}/replay`, { eventId: "x", failed: true })).toMatchObject({
      status: 400,
    });
    expect(await send("POST", `/destinations/${id}/replay`, { since: "yesterday" })).toMatchObject({
      status: 400,
    });
  });
});
