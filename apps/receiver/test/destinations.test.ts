import { join } from "node:path";
import { createReceiverAdminClient } from "@plant-store/admin-api";
import { openStore, type Store } from "@plant-store/store";
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

let receiver: Running;
let store: Store;
let rx: ReturnType<typeof createReceiverAdminClient>;

beforeAll(async () => {
  const db = join(tempDir(), "receiver.db");
  receiver = await startReceiver(["--token", TOKEN, "--secret", SECRET, "--admin-token", ADMIN, "--db", db]);
  // The test plays the forwarding worker on the same database (claim, record), so forwards reach every state.
  store = await openStore(db);
  rx = createReceiverAdminClient({ baseUrl: receiver.url, token: ADMIN });
}, 30_000);
afterAll(async () => {
  await store?.close();
  receiver?.child.kill("SIGTERM");
  await receiver?.exited;
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

/** Claims the destination's due forwards and records `kind` for each, as a worker would. */
async function settle(kind: "delivered" | "failed"): Promise<number> {
  const claimed = await store.outbox.claim(100, { leaseMs: 30_000, workerId: "test", scope: "receiver" });
  for (const d of claimed) {
    await store.outbox.record(d, { kind, status: kind === "delivered" ? 200 : 500, latencyMs: 3 });
  }
  return claimed.length;
}

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
      body: { name: "orders", url: "http://orders.internal/hooks?key=v", headers: { "x-api-key": "inner" } },
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({
      name: "orders",
      state: "active",
      depth: 0,
      headerNames: ["x-api-key"],
    });
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
    expect(await settle("delivered")).toBe(0); // paused: nothing is claimed
    expect(await rx.call("resumeDestination", { params: { id } })).toMatchObject({
      value: { state: "active" },
    });
    expect(await settle("delivered")).toBe(1);
    expect(await rx.call("getDestination", { params: { id } })).toMatchObject({
      value: { depth: 0, lagSeconds: 0 },
    });
    await rx.call("deleteDestination", { params: { id } });
  });

  it("lists an event's forwards with their attempts, and replays by event id, since a time, and the failed ones", async () => {
    const created = await rx.call("createDestination", {
      body: { name: "replays", url: "http://svc.internal/r" },
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const id = created.value.id;
    const events = [await deliverEvent(10), await deliverEvent(11)];
    expect(await settle("delivered")).toBe(2);
    const before = new Date().toISOString();
    await deliverEvent(12);
    expect(await settle("failed")).toBe(1);

    const forwards = await rx.call("listEventForwards", { params: { id: events[0] as string } });
    if (!forwards.ok) throw new Error(JSON.stringify(forwards));
    expect(forwards.value.data).toHaveLength(1);
    expect(forwards.value.data[0]).toMatchObject({ destinationId: id, state: "delivered" });
    expect(forwards.value.data[0]?.attemptLog).toMatchObject([{ attempt: 1, status: 200 }]);
    const failedPage = await rx.call("listForwards", { params: { id }, query: { state: "failed" } });
    if (!failedPage.ok) throw new Error(JSON.stringify(failedPage));
    expect(failedPage.value.data).toHaveLength(1);
    const attempts = await rx.call("listForwardAttempts", {
      params: { id: String(failedPage.value.data[0]?.id) },
    });
    expect(attempts).toMatchObject({ ok: true, value: { data: [{ status: 500 }] } });

    const replay = (body: Parameters<typeof rx.call<"replayDestination">>[1]["body"]) =>
      rx.call("replayDestination", { params: { id }, body });
    expect(await replay({ eventId: events[1] as string })).toMatchObject({
      ok: true,
      value: { requeued: 1 },
    });
    expect(await settle("delivered")).toBe(1);
    expect(await replay({ failed: true })).toMatchObject({ ok: true, value: { requeued: 1 } });
    expect(await settle("delivered")).toBe(1);
    expect(await replay({ since: before })).toMatchObject({ ok: true, value: { requeued: 1 } });
    expect(await settle("delivered")).toBe(1);
    expect(await replay({ since: "2000-01-01T00:00:00Z" })).toMatchObject({
      ok: true,
      value: { requeued: 3 },
    });
    expect(await settle("delivered")).toBe(3);

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
