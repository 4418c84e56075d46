import type { ServerResponse } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { verify } from "@plant-store/core";
import { buildCatalog, catalog } from "@plant-store/spec";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender } from "../src/index.js";
import {
  ADMIN,
  api,
  cleanup,
  RECEIVER_BIN,
  type Running,
  SECRET,
  SENDER_BIN,
  sink,
  start,
  stop,
  TOKEN,
  tempDir,
  until,
} from "./support.js";

let sender: Running;
beforeAll(async () => {
  sender = await start(SENDER_BIN, [
    "--admin-token",
    ADMIN,
    "--db",
    join(tempDir(), "sender.db"),
    "--allow-networks",
    "127.0.0.0/8",
    "--schedule",
    "0,100,200,300",
    "--timeout",
    "400",
  ]);
});
afterAll(async () => {
  expect(await stop(sender)).toBe(0);
  cleanup();
});

async function subscribe(url: string, extra: Record<string, unknown> = {}) {
  const res = await api(sender.url, "POST", "/subscriptions", {
    url,
    token: TOKEN,
    secret: SECRET,
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function deliveriesOf(subscriptionId: string) {
  return (await api(sender.url, "GET", `/deliveries?subscriptionId=${subscriptionId}`)).body.data as {
    id: number;
    state: string;
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
  }[];
}
async function attemptsOf(deliveryId: number) {
  return (await api(sender.url, "GET", `/deliveries/${deliveryId}/attempts`)).body.data as {
    status: number | null;
    error: string | null;
  }[];
}

describe("delivery to the real receiver", () => {
  it("is signed, authenticated, validated and stored once by plant-store-receiver", async () => {
    const receiver = await start(RECEIVER_BIN, [
      "--token",
      TOKEN,
      "--secret",
      SECRET,
      "--admin-token",
      ADMIN,
      "--db",
      join(tempDir(), "receiver.db"),
    ]);
    try {
      const sub = await subscribe(`${receiver.url}/plant/webhook`);
      const bodies = ['{"id":1,"name":"Monstera"}', '{ "id" : 2 , "name" : "Žlutá růže 🌹", "tag": "rose" }'];
      const ids: string[] = [];
      for (const body of bodies) ids.push((await api(sender.url, "POST", "/events", body)).body.messageId);
      const stored = await until(async () => {
        const res = await fetch(`${receiver.url}/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
        const data = ((await res.json()) as { data: { webhookId: string; payload: unknown }[] }).data;
        return data.length >= 2 && data;
      });
      expect(stored.map((e) => e.webhookId).sort()).toEqual([...ids].sort());
      expect(stored.find((e) => e.webhookId === ids[1])?.payload).toEqual({
        id: 2,
        name: "Žlutá růže 🌹",
        tag: "rose",
      });
      const deliveries = await until(async () => {
        const all = await deliveriesOf(sub);
        return all.every((d) => d.state === "delivered") && all;
      });
      expect(deliveries.map((d) => d.attempts)).toEqual([1, 1]);
    } finally {
      await stop(receiver);
    }
  });
});

describe("outcome rules against scripted sinks (compressed schedule 0, 100, 200, 300 ms)", () => {
  it("sends the exact bytes with a valid Standard Webhooks signature and the same webhook-id on every retry", async () => {
    const target = await sink((_req, res, n) => {
      res.statusCode = n < 3 ? 503 : 200;
      res.end(n < 3 ? "busy" : "");
    });
    try {
      await subscribe(target.url);
      const body = '{"id":3,  "name":"Fern"}';
      const { messageId } = (await api(sender.url, "POST", "/events", body)).body;
      await until(async () => target.requests.length >= 3);
      for (const request of target.requests) {
        expect(request.body).toBe(body);
        expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
        expect(request.headers["webhook-id"]).toBe(messageId);
        expect(request.headers["webhook-event-type"]).toBe("newPlant");
        const verdict = await verify({
          secrets: [SECRET],
          id: request.headers["webhook-id"] as string,
          timestamp: request.headers["webhook-timestamp"] as string,
          signature: request.headers["webhook-signature"] as string,
          body: request.body,
        });
        expect(verdict.ok).toBe(true);
      }
    } finally {
      await target.close();
    }
  });

  it("retries failures on the schedule, records every attempt, then fails and keeps the delivery for resend", async () => {
    const target = await sink((_req, res) => {
      res.statusCode = 500;
      res.end("boom");
    });
    try {
      const sub = await subscribe(target.url);
      await api(sender.url, "POST", "/events", '{"id":4,"name":"Cactus"}');
      const [failed] = await until(async () => {
        const all = await deliveriesOf(sub);
        return all[0]?.state === "failed" && all;
      });
      // Schedule 0,100,200,300 → four attempts, then exhausted.
      expect(failed?.attempts).toBe(4);
      const attempts = await attemptsOf(failed?.id as number);
      expect(attempts.map((a) => a.status)).toEqual([500, 500, 500, 500]);
      // The log says which attempts were retried and that the last one failed the delivery for good.
      const logged = await until(async () => {
        const lines = sender
          .stdout()
          .split("\n")
          .filter((l) => l.includes('"msg":"attempt"') && l.includes(`"deliveryId":${failed?.id},`))
          .map((l) => JSON.parse(l) as { attempt: number; outcome: string });
        return lines.length >= 4 && lines;
      });
      expect(logged.map((l) => [l.attempt, l.outcome])).toEqual([
        [1, "retry"],
        [2, "retry"],
        [3, "retry"],
        [4, "failed"],
      ]);
      const resent = await api(sender.url, "POST", `/deliveries/${failed?.id}/resend`);
      expect(resent.status).toBe(200);
      await until(async () => target.requests.length >= 5);
      // The attempt log keeps counting across the resend (the delivery's own count restarts its retry round).
      const history = await until(async () => {
        const list = (await api(sender.url, "GET", `/deliveries/${failed?.id}/attempts`)).body.data as {
          attempt: number;
        }[];
        return list.length >= 5 && list;
      });
      expect(history.map((a) => a.attempt).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await target.close();
    }
  });

  it("honours Retry-After (the next attempt waits at least that long)", async () => {
    const times: number[] = [];
    const target = await sink((_req, res, n) => {
      times.push(Date.now());
      if (n === 1) {
        res.writeHead(429, { "retry-after": "1" });
        res.end();
      } else res.end();
    });
    try {
      const sub = await subscribe(target.url);
      await api(sender.url, "POST", "/events", '{"id":6,"name":"Ivy"}');
      await until(async () => (await deliveriesOf(sub))[0]?.state === "delivered");
      expect(times).toHaveLength(2);
      expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(950);
    } finally {
      await target.close();
    }
  });

  it("410 Gone fails the delivery at once and disables the subscription", async () => {
    const target = await sink((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    try {
      const sub = await subscribe(target.url);
      await api(sender.url, "POST", "/events", '{"id":7,"name":"Palm"}');
      const subscription = await until(async () => {
        const s = (await api(sender.url, "GET", `/subscriptions/${sub}`)).body;
        return s.enabled === false && s;
      });
      expect(subscription.disabledReason).toMatch(/410/);
      expect((await deliveriesOf(sub))[0]).toMatchObject({ state: "failed", attempts: 1, lastStatus: 410 });
      // A disabled subscription gets no new deliveries.
      await api(sender.url, "POST", "/events", '{"id":8,"name":"Palm 2"}');
      expect(await deliveriesOf(sub)).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it("times out an endpoint that never answers (--timeout 400 ms) and retries", async () => {
    const target = await sink(() => {
      // never answers
    });
    try {
      const sub = await subscribe(target.url);
      await api(sender.url, "POST", "/events", '{"id":9,"name":"Slow"}');
      const [delivery] = await until(async () => {
        const all = await deliveriesOf(sub);
        return (all[0]?.attempts ?? 0) >= 2 && all;
      });
      const attempts = await attemptsOf(delivery?.id as number);
      expect(attempts[0]?.error).toMatch(/timed out after 400 ms/);
      expect(attempts[0]?.status).toBeNull();
    } finally {
      await target.close();
    }
  });

  it("exposes attempts by outcome and queue depth in /metrics", async () => {
    const text = await (await fetch(`${sender.url}/metrics`)).text();
    expect(text).toMatch(/plant_store_sender_attempts_total\{outcome="delivered"\} [1-9]/);
    expect(text).toMatch(/plant_store_sender_attempts_total\{outcome="retry"\} [1-9]/);
    expect(text).toMatch(/plant_store_sender_deliveries\{state="failed"\} [1-9]/);
    expect(text).toContain("plant_store_sender_oldest_due_age_seconds");
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it("never logs a token or secret", () => {
    expect(sender.output()).not.toContain(TOKEN);
    expect(sender.output()).not.toContain(SECRET.slice(6));
  });
});

describe("fairness between subscriptions", () => {
  it("a subscriber that hangs does not hold back the others (--concurrency 8 --per-subscription 2)", async () => {
    const own = await start(SENDER_BIN, [
      "--admin-token",
      ADMIN,
      "--db",
      join(tempDir(), "fair.db"),
      "--allow-networks",
      "127.0.0.0/8",
      "--concurrency",
      "8",
      "--per-subscription",
      "2",
      "--timeout",
      "60000",
    ]);
    const hanging = await sink(() => {
      // never answers while the test runs
    });
    const healthy = await sink((_req, res) => res.writeHead(204).end());
    try {
      for (const target of [hanging, healthy]) {
        const res = await api(own.url, "POST", "/subscriptions", {
          url: target.url,
          token: TOKEN,
          secret: SECRET,
        });
        expect(res.status).toBe(201);
      }
      for (let i = 1; i <= 30; i++) {
        expect((await api(own.url, "POST", "/events", `{"id":${i},"name":"Fern ${i}"}`)).status).toBe(202);
      }
      // All 30 reach the healthy subscriber while the hanging one still holds its first two attempts open.
      await until(async () => healthy.requests.length >= 30);
      expect(new Set(healthy.requests.map((r) => r.headers["webhook-id"])).size).toBe(30);
      expect(hanging.requests.length).toBe(2);
    } finally {
      await hanging.close(); // its open attempts fail now, so the sender can stop without waiting for the timeout
      await healthy.close();
      expect(await stop(own)).toBe(0);
    }
  });
});

describe("subscriptions on one host", () => {
  it("do not queue behind each other for connections: one tenant's held attempts leave the other's flowing", async () => {
    // Two subscriptions to one origin (as two tenants of hooks.example.com would be), four attempts in flight for
    // each. Tenant a's endpoint holds every request open until the test has seen all eight of tenant b's arrive:
    // had the two shared a pool of --per-subscription connections, a's four held requests would take every
    // connection and b's would wait behind them, so b's eighth would never arrive while a's are held.
    const own = await start(SENDER_BIN, [
      "--admin-token",
      ADMIN,
      "--db",
      join(tempDir(), "one-host.db"),
      "--allow-networks",
      "127.0.0.0/8",
      "--concurrency",
      "16",
      "--per-subscription",
      "4",
      "--timeout",
      "60000",
    ]);
    const events: string[] = [];
    const held: ServerResponse[] = [];
    let released = false;
    const host = await sink((req, res) => {
      const tenant = new URL(req.url ?? "/", "http://x").searchParams.get("tenant");
      events.push(`${tenant} arrived`);
      if (tenant === "b" || released) res.writeHead(204).end();
      else held.push(res);
    });
    try {
      const subs: string[] = [];
      for (const tenant of ["a", "b"]) {
        const res = await api(own.url, "POST", "/subscriptions", {
          url: `${host.url}?tenant=${tenant}`,
          token: TOKEN,
          secret: SECRET,
        });
        expect(res.status).toBe(201);
        subs.push(res.body.id as string);
      }
      for (let i = 1; i <= 8; i++) {
        expect((await api(own.url, "POST", "/events", `{"id":${i},"name":"Fern ${i}"}`)).status).toBe(202);
      }
      // Every one of b's attempts arrives while a's four are held unanswered.
      await until(
        async () => events.filter((e) => e === "b arrived").length === 8 && held.length === 4,
        20_000,
      );
      events.push("a released");
      released = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
      const done = async (sub: string) =>
        (
          (await api(own.url, "GET", `/deliveries?subscriptionId=${sub}`)).body.data as { state: string }[]
        ).filter((d) => d.state === "delivered").length === 8;
      await until(async () => (await done(subs[0] as string)) && (await done(subs[1] as string)), 20_000);
      expect(events.lastIndexOf("b arrived")).toBeLessThan(events.indexOf("a released"));
      expect(events.filter((e) => e === "a arrived")).toHaveLength(8);
      for (const sub of subs) {
        const deliveries = (await api(own.url, "GET", `/deliveries?subscriptionId=${sub}`)).body.data as {
          attempts: number;
        }[];
        expect(deliveries.map((d) => d.attempts)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
      }
    } finally {
      await host.close(); // any request still held fails now, so the sender stops without waiting for the timeout
      expect(await stop(own)).toBe(0);
    }
  }, 60_000);
});

describe("shutdown", () => {
  it("stops claiming at once and ends within the drain time while an admin client is still uploading", async () => {
    const endpoint = await sink((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 300);
    });
    const file = join(tempDir(), "drain.db");
    const own = await createSender({
      adminTokens: [ADMIN],
      store: { url: file, logger: { warn() {} } },
      allowNetworks: ["127.0.0.0/8"],
      perSubscription: 2,
      timeoutMs: 3_000,
      drainTimeoutMs: 500,
    });
    const url = await own.listen(0, "127.0.0.1");
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    socket.on("error", () => {});
    let drip: ReturnType<typeof setInterval> | undefined;
    try {
      expect((await api(url, "POST", "/subscriptions", { url: endpoint.url, token: TOKEN })).status).toBe(
        201,
      );
      for (let i = 1; i <= 40; i++) {
        expect((await api(url, "POST", "/events", `{"id":${i},"name":"Fern ${i}"}`)).status).toBe(202);
      }
      await until(async () => endpoint.requests.length >= 2);
      // An admin client uploading an event one byte every 100 ms: alive, so no request timeout cuts it.
      socket.write(
        `POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`,
      );
      drip = setInterval(() => socket.write(" "), 100);
      await new Promise((r) => setTimeout(r, 200));
      const sentBeforeClose = endpoint.requests.length;
      await own.close();
      // At most the two attempts in flight at close (per subscription 2) arrive after it; none is started.
      expect(endpoint.requests.length - sentBeforeClose).toBeLessThanOrEqual(2);
      expect(endpoint.requests.length).toBeLessThan(40);
      expect(socket.destroyed || socket.readableEnded).toBe(true);
      const db = new Database(file, { readonly: true });
      const states = db.prepare("SELECT state, count(*) AS n FROM deliveries GROUP BY state").all() as {
        state: string;
        n: number;
      }[];
      db.close();
      // Nothing left leased to a process that is gone: what was not sent is pending for the next start.
      expect(states.find((s) => s.state === "leased")).toBeUndefined();
      expect(states.reduce((n, s) => n + s.n, 0)).toBe(40);
    } finally {
      clearInterval(drip);
      socket.destroy();
      await endpoint.close();
    }
  }, 15_000);
});

describe("auto-disable", () => {
  it("disables a subscription that keeps failing for disableAfterMs (5 days by default; 600 ms here)", async () => {
    const { createSender } = await import("../src/sender.js");
    const target = await sink((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    const inProcess = await createSender({
      adminTokens: [ADMIN],
      allowNetworks: ["127.0.0.0/8"],
      schedule: [0, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150],
      disableAfterMs: 600,
    });
    try {
      const created = await inProcess.store.subscriptions.create({
        url: target.url,
        token: TOKEN,
        secrets: [SECRET],
      });
      await inProcess.store.outbox.publish('{"id":10,"name":"Doomed"}');
      const disabled = await until(async () => {
        const s = await inProcess.store.subscriptions.get(created.id);
        return s && !s.enabled && s;
      });
      expect(disabled?.disabledReason).toMatch(/fail/i);
      expect(target.requests.length).toBeGreaterThanOrEqual(3);
    } finally {
      await inProcess.close();
      await target.close();
    }
  });
});

describe("recording outcomes", () => {
  it("keeps retrying an outcome the store briefly refuses, instead of sending the delivery again later", async () => {
    const { createSender } = await import("../src/sender.js");
    const file = join(tempDir(), "outcome.db");
    let holder: Database.Database | undefined;
    // The receiver answers 200 at once, and while it does, another process takes the database's write lock for
    // longer than the sender's busy timeout (200 ms here), so the first try to record the success fails.
    const target = await sink((_req, res) => {
      holder = new Database(file);
      holder.exec("BEGIN EXCLUSIVE");
      setTimeout(() => {
        holder?.exec("ROLLBACK");
        holder?.close();
      }, 1_000);
      res.end();
    });
    const inProcess = await createSender({
      adminTokens: [ADMIN],
      allowNetworks: ["127.0.0.0/8"],
      store: { url: file, busyTimeoutMs: 200 },
    });
    try {
      const created = await inProcess.store.subscriptions.create({
        url: target.url,
        token: TOKEN,
        secrets: [SECRET],
      });
      await inProcess.store.outbox.publish('{"id":11,"name":"Patient"}');
      const delivered = await until(async () => {
        const page = await inProcess.store.outbox.listDeliveries({ subscriptionId: created.id });
        return page.items[0]?.state === "delivered" && page.items[0];
      }, 10_000);
      expect(delivered.attempts).toBe(1);
      expect(await inProcess.store.outbox.listAttempts(delivered.id)).toHaveLength(1);
      expect(target.requests).toHaveLength(1);
    } finally {
      await inProcess.close();
      await target.close();
    }
  });

  it("names each delivery's event type in webhook-event-type, and sends it only to subscriptions that receive that type", async () => {
    const { createSender } = await import("../src/sender.js");
    const plantsOnly = await sink((_req, res) => res.end());
    const everything = await sink((_req, res) => res.end());
    const inProcess = await createSender({
      adminTokens: [ADMIN],
      allowNetworks: ["127.0.0.0/8"],
      store: { url: join(tempDir(), "event-types.db") },
    });
    try {
      const subscribe = (url: string, eventTypes: string[] | null) =>
        inProcess.store.subscriptions.create({ url, token: TOKEN, secrets: [SECRET], eventTypes });
      await subscribe(plantsOnly.url, ["newPlant"]);
      await subscribe(everything.url, null);
      const plantSold = buildCatalog({
        webhooks: {
          "/plant/sold": {
            post: {
              operationId: "plantSold",
              requestBody: {
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      required: ["plantId"],
                      properties: { plantId: { type: "integer", format: "int64" } },
                    },
                  },
                },
              },
            },
          },
        },
      });
      const sold = await inProcess.store.outbox.publish('{"plantId":9223372036854775807}', {
        eventType: "plantSold",
        catalog: [...catalog, ...plantSold],
        mode: "lossless",
      });
      const plant = await inProcess.store.outbox.publish('{"id":12,"name":"Fern"}');
      await until(async () => everything.requests.length >= 2 && plantsOnly.requests.length >= 1, 10_000);
      const typeOf = (requests: typeof everything.requests) =>
        Object.fromEntries(requests.map((r) => [r.headers["webhook-id"], r.headers["webhook-event-type"]]));
      expect(typeOf(everything.requests)).toEqual({
        [sold.messageId]: "plantSold",
        [plant.messageId]: "newPlant",
      });
      expect(typeOf(plantsOnly.requests)).toEqual({ [plant.messageId]: "newPlant" });
      for (const request of everything.requests) {
        const verdict = await verify({
          secrets: [SECRET],
          id: request.headers["webhook-id"] as string,
          timestamp: request.headers["webhook-timestamp"] as string,
          signature: request.headers["webhook-signature"] as string,
          body: request.body,
        });
        expect(verdict.ok).toBe(true);
      }
      expect(sold.deliveries).toBe(1);
      expect(plant.deliveries).toBe(2);
    } finally {
      await inProcess.close();
      await plantsOnly.close();
      await everything.close();
    }
  });
});
