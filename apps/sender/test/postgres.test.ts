import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../../test-support/processes.js";
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

const PG_URL = process.env.PLANT_STORE_TEST_PG_URL;
if (!PG_URL) console.warn("[sender postgres] SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.");

describe.skipIf(!PG_URL)("two senders share one PostgreSQL outbox", () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let url: string;
  const running: Running[] = [];

  beforeAll(async () => {
    db = await createDatabase(PG_URL as string, "sender");
    url = db.url;
  });
  afterAll(async () => {
    for (const r of running) await stop(r, "SIGKILL");
    await db.drop();
    cleanup();
  });

  it("every event is delivered once: no delivery is attempted twice, the receiver stores each once", async () => {
    const receiver = await start(RECEIVER_BIN, [
      "--token",
      TOKEN,
      "--secret",
      SECRET,
      "--db",
      join(tempDir(), "receiver.db"),
      "--log-level",
      "info",
    ]);
    running.push(receiver);
    const args = [
      "--admin-token",
      ADMIN,
      "--db",
      url,
      "--allow-networks",
      "127.0.0.0/8",
      // An attempt that ran out of time would be attempted again, rightly; on a busy machine that must not happen
      // here, where the claim is that two workers never attempt one delivery twice.
      "--timeout",
      "60000",
    ];
    const a = await start(SENDER_BIN, args);
    const b = await start(SENDER_BIN, args);
    running.push(a, b);
    const sub = await api(a.url, "POST", "/subscriptions", {
      url: `${receiver.url}/plant/webhook`,
      token: TOKEN,
      secret: SECRET,
    });
    expect(sub.status).toBe(201);
    const total = 600;
    // Published through both instances; both workers claim from the same outbox.
    await Promise.all(
      Array.from({ length: total }, (_, i) =>
        api(i % 2 ? a.url : b.url, "POST", "/events", `{"id":${i + 1},"name":"Plant ${i + 1}"}`),
      ),
    );
    // A client, not a pool: its end() resolves once the connection is closed (a pool's resolves before), so the
    // database's drop WITH (FORCE) afterwards never terminates a connection of ours that is still closing.
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    await until(async () => {
      const { rows } = await reader.query(
        "SELECT count(*)::int AS n FROM plant_store.deliveries WHERE state = 'delivered'",
      );
      return (rows[0] as { n: number }).n === total;
    }, 240_000);
    const attempts = await reader.query(
      "SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d, count(DISTINCT worker_id)::int AS w FROM plant_store.delivery_attempts",
    );
    await reader.end();
    const row = attempts.rows[0] as { n: number; d: number; w: number };
    console.log(`postgres: ${total} events, ${row.n} attempts over ${row.d} deliveries by ${row.w} workers`);
    expect(row).toEqual({ n: total, d: total, w: 2 });
    const events = await until(async () => {
      const res = await fetch(`${receiver.url}/metrics`);
      const m = /plant_store_receiver_inbox_events (\d+)/.exec(await res.text());
      return Number(m?.[1]) === total && Number(m?.[1]);
    });
    expect(events).toBe(total);
  }, 300_000);
});

describe.skipIf(!PG_URL)("an outcome committed on a connection that then died", () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  const running: Running[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    db = await createDatabase(PG_URL as string, "sender_cut");
  });
  afterAll(async () => {
    for (const r of running) await stop(r, "SIGKILL");
    for (const close of closers) await close();
    await db.drop();
    cleanup();
  });

  it("is recognised as recorded when the retry finds the lease gone: one request, one attempt, no warning", async () => {
    // A TCP proxy between the sender and PostgreSQL. Armed, it forwards the statement that records an outcome
    // (it logs the attempt into delivery_attempts) to the server and then cuts the sender's side of that
    // connection before the answer comes back: PostgreSQL commits, the sender sees its connection die.
    const target = new URL(db.url);
    let armed = false;
    let cuts = 0;
    const proxy = createServer((client: Socket) => {
      const server = connect(Number(target.port || 5432), target.hostname);
      server.on("data", (chunk) => {
        if (!client.destroyed) client.write(chunk);
      });
      client.on("data", (chunk: Buffer) => {
        server.write(chunk);
        if (armed && chunk.includes("(delivery_id, attempt, attempted_at")) {
          armed = false;
          cuts++;
          client.destroy();
        }
      });
      // The server's side stays open a moment after the sender's closed, so a statement already forwarded is
      // answered (and committed) rather than cancelled.
      client.on("close", () => setTimeout(() => server.end(), 1_000));
      client.on("error", () => {});
      server.on("error", () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise<void>((r) => proxy.close(() => r())));
    const proxied = new URL(db.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String((proxy.address() as { port: number }).port);

    const endpoint = await sink((_req, res) => res.writeHead(200).end());
    closers.push(() => endpoint.close());
    const sender = await start(SENDER_BIN, [
      "--admin-token",
      ADMIN,
      "--db",
      proxied.toString(),
      "--allow-networks",
      "127.0.0.0/8",
      "--timeout",
      "2000",
    ]);
    running.push(sender);
    const sub = await api(sender.url, "POST", "/subscriptions", { url: endpoint.url, token: TOKEN });
    expect(sub.status).toBe(201);

    armed = true;
    expect((await api(sender.url, "POST", "/events", '{"id":1,"name":"Cut"}')).status).toBe(202);
    const reader = new pg.Client({ connectionString: db.url }); // closed before the drop, as above
    await reader.connect();
    closers.push(() => reader.end());
    const attempts = () =>
      reader.query<{ state: string; attempts: number; logged: number }>(
        `SELECT d.state, d.attempts, (SELECT count(*)::int FROM plant_store.delivery_attempts a WHERE a.delivery_id = d.id) AS logged
         FROM plant_store.deliveries d`,
      );
    await until(async () => (await attempts()).rows[0]?.state === "delivered");
    expect(cuts).toBe(1);
    // The sender logs the attempt once its outcome is recorded; it would warn instead had it taken the retry's
    // lease_lost for a lost outcome.
    await until(async () => sender.output().includes('"msg":"attempt"'));
    // Past the lease (timeout 2 s + 5 s): a lost outcome would have been delivered again by now.
    await new Promise((r) => setTimeout(r, 8_000));
    expect(endpoint.requests).toHaveLength(1);
    expect((await attempts()).rows).toEqual([{ state: "delivered", attempts: 1, logged: 1 }]);
    expect(sender.output()).not.toContain("could not record the outcome");
    expect(sender.output()).toMatch(
      /"msg":"attempt".*"outcome":"delivered"|"outcome":"delivered".*"msg":"attempt"/,
    );

    // The sender's pool replaced the dead connection: the next event goes through as usual.
    expect((await api(sender.url, "POST", "/events", '{"id":2,"name":"After"}')).status).toBe(202);
    await until(async () => endpoint.requests.length === 2);
  }, 60_000);
});
