import { randomBytes } from "node:crypto";
import { connect, createServer, type Socket } from "node:net";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openStore, StoreUnavailableError } from "../src/index.js";
import { mapPgError, type PgContext, transaction } from "../src/pg/context.js";
import { pgChannels } from "../src/pg/open-pg.js";
import { PG_URL, pgBackend, type TestBackend } from "./support/backends.js";

// PostgreSQL-only behaviour: the caller's transaction, NOTIFY across instances, lost connections.
if (!PG_URL) console.warn("[store postgres] SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.");

// Waits for evidence, generously: the suite also runs on busy machines.
const WAIT = { timeout: 20_000, interval: 20 };

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

  it("group-commits the publishes of one turn: one notification; a reused key, a bad event or an unknown application fails only its call", async () => {
    const store = await backend.open();
    const a = await store.applications.create({ uid: "cust-a", name: "Acme" });
    const subA = await store.subscriptions.create({
      applicationId: a.id,
      url: "https://a.example/",
      token: "psk_t",
    });
    await store.subscriptions.create({ url: "https://all.example/", token: "psk_t" });
    await store.outbox.publish('{"id":0,"name":"Stored"}', { idempotencyKey: "stored" });
    const schema = (await backend.sql("SELECT {schema} AS s"))[0].s;
    const listener = await app.connect();
    const notified: string[] = [];
    try {
      listener.on("notification", (n) => notified.push(n.channel));
      await listener.query(`LISTEN "${pgChannels(schema).outbox}"`);
      // Submitted in one turn: one group, one statement.
      const settled = await Promise.allSettled([
        ...Array.from({ length: 8 }, (_, i) => store.outbox.publish(`{"id":${i + 1},"name":"Fern"}`)),
        store.outbox.publish('{"id":20,"name":"Moss"}', { idempotencyKey: "k" }),
        store.outbox.publish('{"id":20,"name":"Moss"}', { idempotencyKey: "k" }),
        store.outbox.publish('{"id":21,"name":"Ivy"}', { idempotencyKey: "k" }),
        store.outbox.publish('{"id":0,"name":"Stored"}', { idempotencyKey: "stored" }),
        store.outbox.publish('{"id":0,"name":"Other"}', { idempotencyKey: "stored" }),
        store.outbox.publish('{"id":"not a number","name":"Fern"}'),
        // The group looks up the applications its publishes name in one statement: an unknown one fails its call only.
        store.outbox.publish('{"id":22,"name":"Yew"}', { application: "nobody" }),
        store.outbox.publish('{"id":23,"name":"Elm"}', { application: a.id }),
      ]);
      const [fresh, firstK, againK, otherK, replay, conflict, invalid, unknown, byId] = [
        settled.slice(0, 8),
        ...settled.slice(8),
      ];
      for (const r of fresh as PromiseSettledResult<unknown>[])
        expect(r).toMatchObject({ status: "fulfilled", value: { duplicate: false, deliveries: 2 } });
      expect(firstK).toMatchObject({ status: "fulfilled", value: { duplicate: false, deliveries: 2 } });
      const firstId = (firstK as PromiseFulfilledResult<{ messageId: string }>).value.messageId;
      expect(againK).toMatchObject({ status: "fulfilled", value: { duplicate: true, messageId: firstId } });
      expect(otherK).toMatchObject({ status: "rejected", reason: { code: "idempotency_conflict" } });
      expect(replay).toMatchObject({ status: "fulfilled", value: { duplicate: true, deliveries: 2 } });
      expect(conflict).toMatchObject({ status: "rejected", reason: { code: "idempotency_conflict" } });
      expect(invalid).toMatchObject({ status: "rejected", reason: { code: "invalid_event" } });
      expect(unknown).toMatchObject({ status: "rejected", reason: { code: "not_found" } });
      expect(byId).toMatchObject({ status: "fulfilled", value: { duplicate: false, deliveries: 1 } });
      expect(await backend.sql("SELECT count(*)::int AS n FROM {t}messages")).toEqual([{ n: 11 }]);
      // A later publish is a group of its own; its notification comes after every earlier one.
      const toA = await store.outbox.publish('{"id":30,"name":"Oak"}', {
        application: "cust-a",
        idempotencyKey: "k",
      });
      // The application's own key space, and only its subscription.
      expect(toA).toMatchObject({ duplicate: false, deliveries: 1 });
      const ofA = await store.outbox.listDeliveries({ messageId: toA.messageId });
      expect(ofA.items.map((d) => d.subscriptionId)).toEqual([subA.id]);
      await expect.poll(() => notified.length, WAIT).toBeGreaterThanOrEqual(2);
      expect(notified.length).toBe(2);
    } finally {
      listener.release();
    }
  });

  it("a group whose read-back of replayed keys fails: the committed publishes answer, only the replays fail", async () => {
    const seed = await backend.open();
    await seed.subscriptions.create({ url: "https://all.example/", token: "psk_t" });
    await seed.outbox.publish('{"id":0,"name":"Stored"}', { idempotencyKey: "stored" });
    // A real pool on the same schema, whose connection drops exactly when the group reads back the skipped keys.
    const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
    const query = pool.query.bind(pool) as (text: unknown, values?: unknown) => Promise<unknown>;
    let injected = 0;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      if (typeof text === "string" && text.includes("m.idempotency_key = ANY")) {
        injected++;
        return Promise.reject(Object.assign(new Error("connection dropped"), { code: "08006" }));
      }
      return query(text, values);
    };
    const store = await openStore({ pool, schema: backend.schema, logger: { warn() {} } });
    try {
      const [fresh, replay] = await Promise.allSettled([
        store.outbox.publish('{"id":1,"name":"Fern"}', { idempotencyKey: "new" }),
        store.outbox.publish('{"id":0,"name":"Stored"}', { idempotencyKey: "stored" }),
      ]);
      expect(injected).toBe(1);
      expect(fresh).toMatchObject({ status: "fulfilled", value: { duplicate: false, deliveries: 1 } });
      expect(replay).toMatchObject({ status: "rejected", reason: { code: "store_unavailable" } });
      const id = (fresh as PromiseFulfilledResult<{ messageId: string }>).value.messageId;
      expect(await seed.outbox.getMessage(id)).toMatchObject({ id });
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it("publishes a batch inside the caller's transaction; a refused batch leaves the caller's work standing", async () => {
    const store = await backend.open();
    await store.subscriptions.create({ url: "https://a.example/", token: "psk_t" });
    await store.outbox.publish('{"id":9,"name":"Moss"}', { idempotencyKey: "o-9" });
    const client = await app.connect();
    try {
      await client.query("BEGIN");
      await client.query("CREATE TEMP TABLE orders (id int) ON COMMIT DROP");
      await client.query("INSERT INTO orders VALUES (1)");
      const refused = await store.outbox
        .publishMany(
          [
            { event: '{"id":1,"name":"Fern"}', idempotencyKey: "o-1" },
            { event: '{"id":2,"name":"Fern"}', idempotencyKey: "o-9" },
          ],
          { tx: client },
        )
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: "invalid_batch",
        problems: [{ index: 1, code: "idempotency_conflict" }],
      });
      // The caller's transaction is still usable, and holds none of the refused batch.
      expect((await client.query("SELECT count(*)::int AS n FROM orders")).rows[0].n).toBe(1);
      const batch = await store.outbox.publishMany(
        [{ event: '{"id":1,"name":"Fern"}', idempotencyKey: "o-1" }, { event: '{"id":2,"name":"Fern"}' }],
        { tx: client },
      );
      expect(await store.outbox.getMessage(batch[0]!.messageId)).toBeNull(); // not before the commit
      await client.query("COMMIT");
      expect((await store.outbox.getMessage(batch[0]!.messageId))?.idempotencyKey).toBe("o-1");
      expect(await store.outbox.stats()).toMatchObject({ pending: 3 });

      await client.query("BEGIN");
      const rolledBack = await store.outbox.publishMany([{ event: '{"id":3,"name":"Fern"}' }], {
        tx: client,
      });
      await client.query("ROLLBACK");
      expect(await store.outbox.getMessage(rolledBack[0]!.messageId)).toBeNull();
      expect(await store.outbox.stats()).toMatchObject({ pending: 3 });
    } finally {
      client.release();
    }
  });

  it("streams another instance's inbox writes via NOTIFY, including a late-committing lower seq", async () => {
    const reader = await backend.open();
    const writer = await backend.open();
    const controller = new AbortController();
    const received: string[] = [];
    // The stream starts after what is stored now, whenever it gets to read that: no wait for it to start.
    const [{ max }] = await backend.sql("SELECT coalesce(max(seq), 0)::int AS max FROM {t}inbox_events");
    const consumer = (async () => {
      for await (const e of reader.inbox.stream({
        signal: controller.signal,
        pollIntervalMs: 600_000,
        after: max,
      })) {
        received.push(e.webhookId);
        if (received.length === 3) controller.abort();
      }
    })();

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
      await expect.poll(() => received.length, WAIT).toBe(2);
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

  /** Entries of deliveries_due_idx that `claim` read (a backend reports its statistics when it exits). */
  async function dueIndexReadBy(
    store: { close(): Promise<void> },
    claim: () => Promise<void>,
  ): Promise<number> {
    const dueIndex = async () => {
      const [row] = await backend.sql(
        `SELECT idx_scan, idx_tup_read FROM pg_stat_user_indexes
         WHERE schemaname = {schema} AND indexrelname = 'deliveries_due_idx'`,
      );
      return { scans: Number(row.idx_scan), read: Number(row.idx_tup_read) };
    };
    const before = await dueIndex();
    await claim();
    // An idle backend reports only after 10 s: closing the store ends them.
    await store.close();
    await expect.poll(async () => (await dueIndex()).scans, WAIT).toBeGreaterThan(before.scans);
    return (await dueIndex()).read - before.read;
  }

  it("claims from a backlog never analysed by walking the due index in order, not by reading and sorting it all", async () => {
    const store = await backend.open();
    // 3 subscriptions × 1,000 events: 3,000 due deliveries.
    for (const host of ["a", "b", "c"])
      await store.subscriptions.create({ url: `https://${host}.example/`, token: "psk_t" });
    await store.outbox.publishMany(
      Array.from({ length: 1_000 }, (_, i) => ({ event: JSON.stringify({ id: i + 1, name: "Fern" }) })),
    );
    const read = await dueIndexReadBy(store, async () => {
      expect(await store.outbox.claim(50, { leaseMs: 30_000, workerId: "w" })).toHaveLength(50);
    });
    // The claim read about its 50 entries of the due index, not the 3,000 due ones (sorted).
    expect(read).toBeLessThan(200);
  });

  it("claims destinations from a backlog never analysed by walking the due index in order, too", async () => {
    const store = await backend.open();
    // 3 destinations × 400 received events: 1,200 due forwards.
    for (const name of ["a", "b", "c"])
      await store.destinations.create({ name, url: `http://${name}.internal/` });
    for (let i = 0; i < 400; i++) await store.inbox.record({ webhookId: `msg_${i}`, body: `{"id":${i}}` });
    const read = await dueIndexReadBy(store, async () => {
      const claimed = await store.outbox.claim(50, { leaseMs: 30_000, workerId: "rx", scope: "receiver" });
      expect(claimed).toHaveLength(50);
    });
    console.info(`[destination claim] due-index entries read by one claim of 50: ${read}`);
    // About the claim's scan of the due index (its limit, 50), not the 1,200 due forwards read and sorted.
    expect(read).toBeLessThan(300);
  });

  it("sends the claim and the outcome statement as named statements: parsed once per connection, not each time", async () => {
    const store = await backend.open({ poolSize: 1 });
    await store.subscriptions.create({ url: "https://a.example/", token: "psk_t" });
    await store.outbox.publishMany([1, 2].map((id) => ({ event: JSON.stringify({ id, name: "Fern" }) })));
    const sent = vi.spyOn(pg.Client.prototype, "query");
    try {
      for (let round = 0; round < 2; round++) {
        const [delivery] = await store.outbox.claim(1, { leaseMs: 30_000, workerId: "w" });
        await store.outbox.record(delivery!, { kind: "delivered", status: 204, latencyMs: 1 });
      }
      const named = sent.mock.calls.flatMap(([config]) => {
        const name = (config as { name?: unknown } | null)?.name;
        return typeof name === "string" ? [name] : [];
      });
      // Two claims and two outcome statements, under two names.
      expect(named).toHaveLength(4);
      expect(new Set(named).size).toBe(2);
      expect(await store.outbox.stats()).toMatchObject({ delivered: 2, pending: 0 });
    } finally {
      sent.mockRestore();
    }
  });

  it("answers unavailable within busyTimeoutMs behind a table lock, is not ready meanwhile, and recovers", async () => {
    const store = await backend.open({ busyTimeoutMs: 300 });
    await store.inbox.record({ webhookId: "warm", body: "{}" });
    const [{ s: schema }] = await backend.sql("SELECT {schema} AS s");
    const holder = await app.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`LOCK TABLE "${schema}".inbox_events IN ACCESS EXCLUSIVE MODE`);
      const t0 = Date.now();
      await expect(store.inbox.record({ webhookId: "locked", body: "{}" })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - t0).toBeLessThan(3_000);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    await expect(store.ping()).resolves.toBeUndefined();
    await expect(store.inbox.record({ webhookId: "locked", body: "{}" })).resolves.toMatchObject({
      duplicate: false,
    });
  });

  it("cancels a statement that runs longer than statementTimeoutMs as unavailable; 0 turns the limit off", async () => {
    await backend.open(); // creates the schema
    await backend.sql(`CREATE FUNCTION {t}slow() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$
      LANGUAGE plpgsql`);
    await backend.sql(
      "CREATE TRIGGER slow BEFORE INSERT ON {t}inbox_events FOR EACH ROW EXECUTE FUNCTION {t}slow()",
    );
    const store = await backend.open({ statementTimeoutMs: 300 });
    const t0 = Date.now();
    await expect(store.inbox.record({ webhookId: "slow", body: "{}" })).rejects.toMatchObject({
      code: "store_unavailable",
      message: expect.stringContaining("57014"),
    });
    expect(Date.now() - t0).toBeLessThan(1_400);
    const unlimited = await backend.open({ statementTimeoutMs: 0 });
    await expect(unlimited.inbox.record({ webhookId: "slow", body: "{}" })).resolves.toMatchObject({
      duplicate: false,
    });
    await expect(backend.open({ statementTimeoutMs: -1 })).rejects.toMatchObject({ code: "invalid_option" });
  });

  it("exempts statements whose cost grows with the backlog (disable, delete) from statementTimeoutMs", async () => {
    const store = await backend.open({ statementTimeoutMs: 300 });
    const [a, b] = [
      await store.subscriptions.create({ url: "https://a.example/", token: "psk_a" }),
      await store.subscriptions.create({ url: "https://b.example/", token: "psk_b" }),
    ];
    await store.outbox.publish({ id: 1, name: "Fern" });
    // Stands in for a backlog of a million rows: every statement touching deliveries takes 1 s.
    await backend.sql(`CREATE FUNCTION {t}slow_stmt() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$
      LANGUAGE plpgsql`);
    await backend.sql(
      "CREATE TRIGGER slow_stmt BEFORE UPDATE OR DELETE ON {t}deliveries FOR EACH STATEMENT EXECUTE FUNCTION {t}slow_stmt()",
    );
    await expect(store.subscriptions.disable(a!.id, "gone")).resolves.toMatchObject({ enabled: false });
    await expect(store.subscriptions.delete(b!.id)).resolves.toBe(true);
  });

  it("drops a connection that stops answering (read timeout) and serves the next call on a new one", async () => {
    // A TCP relay to the server that can freeze: bytes stop flowing both ways, as on a dead network path.
    const target = new URL(PG_URL as string);
    let frozen = false;
    const sockets: Socket[] = [];
    const relay = createServer((client) => {
      const server = connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, server);
      client.on("data", (chunk) => frozen || server.write(chunk));
      server.on("data", (chunk) => frozen || client.write(chunk));
      for (const [a, b] of [
        [client, server],
        [server, client],
      ] as const) {
        a.on("error", () => b.destroy());
        a.on("close", () => b.destroy());
      }
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const url = new URL(PG_URL as string);
    url.hostname = "127.0.0.1";
    url.port = String((relay.address() as { port: number }).port);
    await backend.open(); // the schema, migrated through the direct URL
    const [{ s: schema }] = await backend.sql("SELECT {schema} AS s");
    const store = await openStore({ url: url.href, schema, statementTimeoutMs: 300, logger: { warn() {} } });
    try {
      await store.inbox.record({ webhookId: "before", body: "{}" });
      frozen = true;
      const t0 = Date.now();
      await expect(store.inbox.record({ webhookId: "frozen", body: "{}" })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      const waited = Date.now() - t0;
      expect(waited).toBeGreaterThan(5_000); // the server-side timeout cannot fire: nothing reaches it
      expect(waited).toBeLessThan(9_000);
      // Inside a transaction too: the frozen connection is dropped, not asked for a ROLLBACK that would wait as long.
      const sub = await backend
        .open()
        .then((direct) => direct.subscriptions.create({ url: "https://a.example/", token: "psk_a" }));
      const t1 = Date.now();
      await expect(store.subscriptions.update(sub.id, { url: "https://b.example/" })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(Date.now() - t1).toBeLessThan(9_000);
      frozen = false;
      await expect(store.inbox.record({ webhookId: "after", body: "{}" })).resolves.toMatchObject({
        duplicate: false,
      });
    } finally {
      const closing = Date.now();
      await store.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      for (const socket of sockets) socket.destroy();
      relay.close();
    }
  }, 30_000);

  it("reports an unreachable server as store_unavailable", async () => {
    const error = await openStore({ url: "postgres://postgres@127.0.0.1:1/none" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });

  it("maps a terminated backend to store_unavailable", async () => {
    const victim = new pg.Client({ connectionString: PG_URL, application_name: "plant-store-victim" });
    victim.on("error", () => {});
    await victim.connect();
    const { pid } = (await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0] as {
      pid: number;
    };
    const running = victim.query("SELECT pg_sleep(10)").catch((e: unknown) => e);
    // Terminated while the query runs (seen in pg_stat_activity), and only this test's own backend.
    const active = async () =>
      (
        await app.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'", [
          pid,
        ])
      ).rowCount;
    await expect.poll(active, WAIT).toBe(1);
    await app.query("SELECT pg_terminate_backend($1)", [pid]);
    const mapped = mapPgError(await running);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).code).toBe("store_unavailable");
    await victim.end().catch(() => {});
  });

  it("survives a connection ended inside a transaction: the transaction fails as unavailable, the process stays up, the connection is not reused", async () => {
    // pg emits 'error' on a client whose connection ends, and a pool listens only to its idle clients: unheard inside
    // a transaction, the event was an uncaught exception.
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      const ctx = { pool, closed: new AbortController().signal } as unknown as PgContext;
      let killed = 0;
      const outcome = transaction(ctx, async (client) => {
        killed = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
        const ended = new Promise((resolve) => client.once("end", resolve));
        await app.query("SELECT pg_terminate_backend($1)", [killed]);
        await ended; // the loss was seen between two statements, with none running
        await client.query("SELECT 1");
      });
      await expect(outcome).rejects.toBeInstanceOf(StoreUnavailableError);
      const { rows } = await pool.query("SELECT pg_backend_pid() AS pid");
      expect(rows[0].pid).not.toBe(killed);
    } finally {
      await pool.end();
    }
  });

  it("recovers from killed pool and LISTEN connections", async () => {
    // Only this test's connections are killed: other test runs may share the server.
    const applicationName = `plant-store-test-${randomBytes(6).toString("hex")}`;
    const backends = async (name: string, listening = false) =>
      (
        await app.query(
          `SELECT pid FROM pg_stat_activity WHERE application_name = $1${listening ? " AND query LIKE 'LISTEN %'" : ""}`,
          [name],
        )
      ).rows.map((r) => r.pid as number);
    const warnings: string[] = [];
    const store = await backend.open({ applicationName, logger: { warn: (m) => warnings.push(m) } });
    const other = await backend.open();
    await store.subscriptions.create({ url: "https://a.example/", token: "psk_t" });
    await store.outbox.waitForWork(undefined, 1); // starts LISTEN
    await expect.poll(() => backends(`${applicationName}-listen`, true), WAIT).toHaveLength(1);
    const [listenPid] = await backends(`${applicationName}-listen`);
    const killed = [...(await backends(applicationName)), listenPid];
    await app.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)", [killed]);
    await expect
      .poll(
        async () =>
          (await app.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1)", [killed]))
            .rows[0].n,
        WAIT,
      )
      .toBe(0);
    // Dead pooled connections are dropped; at most one query sees the loss, as store_unavailable.
    const first = await store.ping().then(
      () => "ok",
      (e: unknown) => e,
    );
    if (first !== "ok") expect(first).toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).resolves.toBeUndefined();
    await expect.poll(() => warnings.some((w) => /LISTEN connection lost/.test(w)), WAIT).toBe(true);
    // The LISTEN connection came back: a publish from another instance still wakes us (without LISTEN the
    // wait would run out and answer false).
    await expect
      .poll(
        async () => (await backends(`${applicationName}-listen`, true)).filter((pid) => pid !== listenPid),
        WAIT,
      )
      .toHaveLength(1);
    const woken = store.outbox.waitForWork(undefined, 20_000);
    await other.outbox.publish('{"id":1,"name":"Fern"}');
    expect(await woken).toBe(true);
  });
});
