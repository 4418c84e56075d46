import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, StoreUnavailableError } from "../src/index.js";
import { mapPgError } from "../src/pg/context.js";
import { pgChannels } from "../src/pg/open-pg.js";
import { PG_URL, pgBackend, type TestBackend } from "./support/backends.js";

// PostgreSQL-only behaviour: the caller's transaction, NOTIFY across instances, lost connections.
if (!PG_URL) console.warn("[store postgres] SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.");

describe.skipIf(!PG_URL)("PostgreSQL", () => {
  let backend: TestBackend;
  let app: pg.Pool;
  beforeEach(() => {
    backend = pgBackend(PG_URL as string);
    app = new pg.Pool({ connectionString: PG_URL, max: 2 });
  });
  afterEach(async () => {
    await app.end();
    await backend.cleanup();
  });

  it("publishes inside the caller's transaction: rolled back → nothing; committed → delivered, woken at commit", async () => {
    const store = await backend.open();
    const worker = await backend.open();
    await store.subscriptions.create({ url: "https://a.example/", token: "psk_t" });
    const client = await app.connect();
    try {
      await client.query("BEGIN");
      await client.query("CREATE TEMP TABLE orders (id int) ON COMMIT DROP");
      await client.query("INSERT INTO orders VALUES (1)");
      const rolledBack = await store.outbox.publish('{"id":1,"name":"Fern"}', {
        tx: client,
        idempotencyKey: "o-1",
      });
      await client.query("ROLLBACK");
      expect(await store.outbox.getMessage(rolledBack.messageId)).toBeNull();
      expect(await store.outbox.stats()).toMatchObject({ pending: 0 });

      await worker.outbox.waitForWork(undefined, 1); // starts the worker's LISTEN connection
      await client.query("BEGIN");
      const published = await store.outbox.publish('{"id":1,"name":"Fern"}', {
        tx: client,
        idempotencyKey: "o-1",
      });
      expect(published.duplicate).toBe(false);
      // Not visible and nobody woken before the commit.
      expect(await worker.outbox.waitForWork(undefined, 300)).toBe(false);
      expect(await worker.outbox.claim(10, { leaseMs: 1000, workerId: "w" })).toEqual([]);
      const woken = worker.outbox.waitForWork(undefined, 20_000);
      const t0 = Date.now();
      await client.query("COMMIT");
      expect(await woken).toBe(true);
      expect(Date.now() - t0).toBeLessThan(2_000);
      const [claimed] = await worker.outbox.claim(10, { leaseMs: 1000, workerId: "w" });
      expect(claimed!.message.id).toBe(published.messageId);
    } finally {
      client.release();
    }
  });

  it("streams another instance's inbox writes via NOTIFY, including a late-committing lower seq", async () => {
    const reader = await backend.open();
    const writer = await backend.open();
    const controller = new AbortController();
    const received: string[] = [];
    const consumer = (async () => {
      for await (const e of reader.inbox.stream({ signal: controller.signal, pollIntervalMs: 600_000 })) {
        received.push(e.webhookId);
        if (received.length === 3) controller.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 200));

    // A transaction takes seq n but commits after seq n+1 is committed and streamed.
    const slow = await app.connect();
    try {
      await slow.query("BEGIN");
      const [{ seq }] = (
        await slow.query(
          `INSERT INTO ${(await backend.sql("SELECT quote_ident({schema}) AS s"))[0].s}.inbox_events
           (webhook_id, body, headers, received_at) VALUES ('late', '\\x7b7d', '{}', 0) RETURNING seq`,
        )
      ).rows;
      await writer.inbox.record({ webhookId: "early-1", body: "{}" });
      await writer.inbox.record({ webhookId: "early-2", body: "{}" });
      await new Promise((r) => setTimeout(r, 200));
      expect(received).toEqual(["early-1", "early-2"]);
      const schema = (await backend.sql("SELECT {schema} AS s"))[0].s;
      await slow.query("SELECT pg_notify($1, $2)", [pgChannels(schema).inbox, String(seq)]);
      await slow.query("COMMIT");
    } finally {
      slow.release();
    }
    await consumer;
    expect(received).toEqual(["early-1", "early-2", "late"]);
  });

  it("reports an unreachable server as store_unavailable", async () => {
    const error = await openStore({ url: "postgres://postgres@127.0.0.1:1/none" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });

  it("maps a terminated backend to store_unavailable", async () => {
    const victim = new pg.Client({ connectionString: PG_URL, application_name: "plant-store-victim" });
    victim.on("error", () => {});
    await victim.connect();
    const running = victim.query("SELECT pg_sleep(10)").catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    await app.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'plant-store-victim'",
    );
    const mapped = mapPgError(await running);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).code).toBe("store_unavailable");
    await victim.end().catch(() => {});
  });

  it("recovers from killed pool and LISTEN connections", async () => {
    const warnings: string[] = [];
    const store = await backend.open({ logger: { warn: (m) => warnings.push(m) } });
    const other = await backend.open();
    await store.subscriptions.create({ url: "https://a.example/", token: "psk_t" });
    await store.outbox.waitForWork(undefined, 1); // starts LISTEN
    await new Promise((r) => setTimeout(r, 300));
    await app.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name IN ('plant-store', 'plant-store-listen')",
    );
    await new Promise((r) => setTimeout(r, 100));
    // Dead pooled connections are dropped; at most one query sees the loss, as store_unavailable.
    const first = await store.ping().then(
      () => "ok",
      (e: unknown) => e,
    );
    if (first !== "ok") expect(first).toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).resolves.toBeUndefined();
    expect(warnings.some((w) => /LISTEN connection lost/.test(w))).toBe(true);
    // The LISTEN connection came back: a publish from another instance still wakes us at once.
    await new Promise((r) => setTimeout(r, 500));
    const woken = store.outbox.waitForWork(undefined, 20_000);
    const t0 = Date.now();
    await other.outbox.publish('{"id":1,"name":"Fern"}');
    expect(await woken).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
