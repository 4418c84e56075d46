import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../../test-support/processes.js";
import { ADMIN, post, type Running, SECRET, signedHeaders, startReceiver, TOKEN } from "./support.js";

const PG_URL = process.env.PLANT_STORE_TEST_PG_URL;
if (!PG_URL)
  console.warn("[receiver postgres] SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.");

describe.skipIf(!PG_URL)("plant-store-receiver on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  const running: Running[] = [];

  beforeAll(async () => {
    db = await createDatabase(PG_URL as string, "receiver");
    for (let i = 0; i < 2; i++) {
      running.push(
        await startReceiver(["--token", TOKEN, "--secret", SECRET, "--admin-token", ADMIN, "--db", db.url]),
      );
    }
  });
  afterAll(async () => {
    for (const r of running) await r.stop("SIGKILL");
    await db.drop();
  });

  it("two receivers on one inbox: the same webhook-id sent to both is stored once, both answer 200", async () => {
    const [a, b] = running as [Running, Running];
    for (let i = 0; i < 20; i++) {
      const body = JSON.stringify({ id: i, name: `Shared ${i}` });
      const headers = await signedHeaders(body, { id: `msg_shared_${i}` });
      const [ra, rb] = await Promise.all([post(a.url, body, headers), post(b.url, body, headers)]);
      expect([ra.status, rb.status]).toEqual([200, 200]);
      // Exactly one of the two reports the duplicate.
      expect([ra.headers.get("webhook-duplicate"), rb.headers.get("webhook-duplicate")].sort()).toEqual([
        null,
        "true",
      ]);
    }
    const events = (await (
      await fetch(`${a.url}/events?limit=1000`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { data: { webhookId: string }[] };
    expect(events.data.filter((e) => e.webhookId.startsWith("msg_shared_"))).toHaveLength(20); // 20 ids, each stored once
  });

  it("answers 503 on /readyz and on webhooks when the database goes away, never 500", async () => {
    const [a] = running as [Running];
    await db.client.query(`DROP DATABASE ${db.name} WITH (FORCE)`);
    const ready = await fetch(`${a.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: 503, message: expect.stringContaining("store") });
    const body = JSON.stringify({ id: 99, name: "Orphan" });
    const r = await post(a.url, body, await signedHeaders(body));
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: 503, message: expect.stringMatching(/retry/i) });
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
  }, 30_000);
});
