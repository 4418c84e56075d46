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
      "--timeout",
      "2000",
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
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await until(async () => {
      const { rows } = await pool.query(
        "SELECT count(*)::int AS n FROM plant_store.deliveries WHERE state = 'delivered'",
      );
      return (rows[0] as { n: number }).n === total;
    }, 60_000);
    const attempts = await pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d, count(DISTINCT worker_id)::int AS w FROM plant_store.delivery_attempts",
    );
    await pool.end();
    const row = attempts.rows[0] as { n: number; d: number; w: number };
    console.log(`postgres: ${total} events, ${row.n} attempts over ${row.d} deliveries by ${row.w} workers`);
    expect(row).toEqual({ n: total, d: total, w: 2 });
    const events = await until(async () => {
      const res = await fetch(`${receiver.url}/metrics`);
      const m = /plant_store_receiver_inbox_events (\d+)/.exec(await res.text());
      return Number(m?.[1]) === total && Number(m?.[1]);
    });
    expect(events).toBe(total);
  }, 90_000);
});
