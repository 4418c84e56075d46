import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../../test-support/processes.js";
import {
  ADMIN,
  api,
  cleanup,
  type Running,
  SECRET,
  SENDER_BIN,
  type Sink,
  sink,
  start,
  stop,
  TOKEN,
  tempDir,
  until,
} from "./support.js";

const PG_URL = process.env.PLANT_STORE_TEST_PG_URL;
if (!PG_URL)
  console.warn(
    "[sender endpoint options] PostgreSQL part SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://…",
  );

const senderArgs = (db: string) => ["--admin-token", ADMIN, "--db", db, "--allow-networks", "127.0.0.0/8"];
const ok = () => sink((_req, res) => res.writeHead(204).end());

/**
 * Deliveries per second as the sink saw them: the gaps from its second arrival to its last (28 gaps over 30
 * deliveries, 5.6 s at 5/s). The first is left out: it pays for the connection's set-up, and on a loaded machine it
 * goes out late, together with the second, which would shorten the span by up to an interval.
 */
function rateOf(received: Sink["requests"]): number {
  const times = received
    .map((r) => r.at)
    .sort((a, b) => a - b)
    .slice(1);
  return ((times.length - 1) * 1000) / ((times.at(-1) as number) - (times[0] as number));
}

/**
 * Whether an unlimited subscription's deliveries all arrived within 3 s of the last publish: at 5/s (+20%) its 30
 * would take at least 4.8 s, so it was not held to the other's limit (the slack is for a loaded machine).
 */
function fullSpeed(received: Sink, publishedAt: number): boolean {
  return Math.max(...received.requests.map((r) => r.at)) - publishedAt < 3000;
}

async function subscribe(base: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(base, "POST", "/subscriptions", { url, token: TOKEN, secret: SECRET, ...extra });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Publishes `n` events as one batch through each sender (all stored at once: the sinks measure delivery, not publishing). */
async function publish(bases: string[], n: number): Promise<void> {
  for (const [k, base] of bases.entries()) {
    const events = [];
    for (let i = k; i < n; i += bases.length) events.push({ payload: { id: i + 1, name: "Fern" } });
    const res = await api(base, "POST", "/events/batch", { events });
    expect(res.status).toBe(202);
  }
}

describe("endpoint options on the sender's subscriptions (SQLite)", () => {
  const running: Running[] = [];
  const sinks: Sink[] = [];
  afterAll(async () => {
    for (const r of running) await stop(r, "SIGKILL");
    for (const s of sinks) await s.close();
    cleanup();
  });

  it("a subscription at 5/s receives at 5/s ±20% while one without a limit runs at full speed; headers arrive", async () => {
    const sender = await start(SENDER_BIN, senderArgs(join(tempDir(), "sender.db")));
    running.push(sender);
    const slow = await ok();
    const fast = await ok();
    sinks.push(slow, fast);
    const limited = await subscribe(sender.url, slow.url, { rateLimit: 5, headers: { "X-Tenant": "acme" } });
    await subscribe(sender.url, fast.url, { headers: { "x-region": "eu" } });
    expect((await api(sender.url, "GET", `/subscriptions/${limited}`)).body).toMatchObject({
      rateLimit: 5,
      headerNames: ["x-tenant"],
    });
    const total = 30;
    await publish([sender.url], total);
    const published = performance.now();
    await until(async () => fast.requests.length >= total && slow.requests.length >= total, 30_000);
    const slowRate = rateOf(slow.requests);
    const fastRate = rateOf(fast.requests);
    console.log(
      `sqlite: limited ${slowRate.toFixed(2)}/s, unlimited ${fastRate.toFixed(1)}/s over ${total} each`,
    );
    expect(slowRate).toBeGreaterThanOrEqual(4);
    expect(slowRate).toBeLessThanOrEqual(6);
    expect(fullSpeed(fast, published)).toBe(true);
    expect(
      slow.requests.every((r) => r.headers["x-tenant"] === "acme" && r.headers["x-region"] === undefined),
    ).toBe(true);
    expect(
      fast.requests.every((r) => r.headers["x-region"] === "eu" && r.headers["x-tenant"] === undefined),
    ).toBe(true);
    expect(slow.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  }, 60_000);

  it("a header a delivery sets itself is refused with 400 {error, message} naming it, on create and on change", async () => {
    const sender = running[0] as Running;
    for (const name of [
      "webhook-signature",
      "Webhook-Id",
      "webhook-timestamp",
      "content-type",
      "Host",
      "authorization",
    ]) {
      const created = await api(sender.url, "POST", "/subscriptions", {
        url: "http://127.0.0.1:9/hook",
        headers: { [name]: "x" },
      });
      expect(created.status).toBe(400);
      expect(created.body).toEqual({ error: 400, message: expect.stringContaining(name.toLowerCase()) });
    }
    const id = await subscribe(sender.url, "http://127.0.0.1:9/hook");
    const changed = await api(sender.url, "PATCH", `/subscriptions/${id}`, {
      headers: { "webhook-id": "x" },
    });
    expect(changed.status).toBe(400);
    expect(changed.body).toEqual({ error: 400, message: expect.stringContaining("webhook-id") });
    const rate = await api(sender.url, "PATCH", `/subscriptions/${id}`, { rateLimit: 0 });
    expect(rate.status).toBe(400);
    expect(rate.body).toEqual({ error: 400, message: expect.stringContaining("rateLimit") });
    const cleared = await api(sender.url, "PATCH", `/subscriptions/${id}`, {
      rateLimit: 2,
      headers: { a: "b" },
    });
    expect(cleared.body).toMatchObject({ rateLimit: 2, headerNames: ["a"] });
    const none = await api(sender.url, "PATCH", `/subscriptions/${id}`, { rateLimit: null, headers: null });
    expect(none.body).toMatchObject({ rateLimit: null, headerNames: [] });
  });
});

describe.skipIf(!PG_URL)("two senders on one PostgreSQL database hold a rate limit together", () => {
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  const running: Running[] = [];
  const sinks: Sink[] = [];
  afterAll(async () => {
    for (const r of running) await stop(r, "SIGKILL");
    for (const s of sinks) await s.close();
    await db?.drop();
    cleanup();
  });

  it("5/s ±20% at the sink, both senders delivering, while an unlimited subscription runs at full speed", async () => {
    db = await createDatabase(PG_URL as string, "sender_rate");
    const a = await start(SENDER_BIN, senderArgs(db.url));
    const b = await start(SENDER_BIN, senderArgs(db.url));
    running.push(a, b);
    const slow = await ok();
    const fast = await ok();
    sinks.push(slow, fast);
    const limited = await subscribe(a.url, slow.url, { rateLimit: 5 });
    await subscribe(b.url, fast.url);
    const total = 30;
    await publish([a.url, b.url], total);
    const published = performance.now();
    await until(async () => fast.requests.length >= total && slow.requests.length >= total, 30_000);
    const slowRate = rateOf(slow.requests);
    console.log(
      `postgres, two senders: limited ${slowRate.toFixed(2)}/s, unlimited ${rateOf(fast.requests).toFixed(1)}/s`,
    );
    expect(slowRate).toBeGreaterThanOrEqual(4);
    expect(slowRate).toBeLessThanOrEqual(6);
    expect(fullSpeed(fast, published)).toBe(true);
    const reader = new pg.Client({ connectionString: db.url });
    await reader.connect();
    // The sink has every request; the last outcomes may still be committing (a slot is freed at the answer).
    const attempts = async () =>
      (
        await reader.query(
          `SELECT count(*)::int AS n, count(DISTINCT a.worker_id)::int AS w FROM plant_store.delivery_attempts a
           JOIN plant_store.deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1`,
          [limited],
        )
      ).rows[0] as { n: number; w: number };
    try {
      await until(async () => (await attempts()).n >= total, 30_000);
      expect(await attempts()).toEqual({ n: total, w: 2 });
    } finally {
      await reader.end();
    }
  }, 60_000);
});
