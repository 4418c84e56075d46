import { GONE_REASON } from "@plant-store/core";
import { operationalCatalog } from "@plant-store/spec";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { OPERATOR_APPLICATION_ID, type Store } from "../../src/index.js";
import { quoteIdent } from "../../src/pg/migrations.js";
import { PG_URL, type TestBackend } from "../support/backends.js";

const TOKEN = "psk_TestTokenValue0001";
const EVENT = '{"id":1,"name":"Fern"}';
const LEASE = { leaseMs: 60_000, workerId: "w" };
const TYPES = operationalCatalog.map((entry) => entry.type);

/** The operational messages stored, oldest first: type, data, and how many deliveries each made. */
async function notices(backend: TestBackend) {
  const rows = await backend.sql(
    `SELECT m.id, m.event_type, m.body, (SELECT count(*) FROM {t}deliveries d WHERE d.message_id = m.id) AS n
     FROM {t}messages m WHERE m.application_id = ? ORDER BY m.id`,
    [OPERATOR_APPLICATION_ID],
  );
  return rows.map((row) => ({
    type: row.event_type as string,
    data: JSON.parse(Buffer.from(row.body).toString("utf8")).data,
    deliveries: Number(row.n),
  }));
}

/** Claims the deliveries due and records `outcome(delivery)` for each, all in one turn. */
async function settle(
  store: Store,
  outcome: (subscriptionId: string) => Parameters<Store["outbox"]["record"]>[1],
): Promise<void> {
  const claimed = await store.outbox.claim(100, LEASE);
  await Promise.all(claimed.map((d) => store.outbox.record(d, outcome(d.subscription.id))));
}

/**
 * PostgreSQL: holds the subscription's row locked on a connection of its own until both senders' outcome transactions
 * wait for it (seen in `pg_locks`), then lets them go together. SQLite has one writer: nothing to hold.
 */
async function raceAtSubscription(b: TestBackend, subscriptionId: string, both: () => Promise<unknown>) {
  if (b.kind !== "postgres") return both();
  const holder = new pg.Client({ connectionString: PG_URL });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`SELECT 1 FROM ${quoteIdent(b.schema!)}.subscriptions WHERE id = $1 FOR UPDATE`, [
      subscriptionId,
    ]);
    const { rows } = await holder.query("SELECT pg_backend_pid() AS pid");
    const running = both();
    running.catch(() => {}); // awaited below; a give-up before that must not leave it unhandled
    // Blocked by the holder, or queued behind a backend it blocks (the second waiter waits on the first's tuple lock).
    const waitingSql = `SELECT count(*)::int AS n FROM pg_stat_activity w
      WHERE $1 = ANY(pg_blocking_pids(w.pid)) OR EXISTS (SELECT 1 FROM pg_stat_activity f
        WHERE f.pid = ANY(pg_blocking_pids(w.pid)) AND $1 = ANY(pg_blocking_pids(f.pid)))`;
    const giveUp = Date.now() + 30_000;
    while ((await holder.query(waitingSql, [rows[0].pid])).rows[0].n < 2) {
      if (Date.now() > giveUp)
        throw new Error("the two outcome transactions never waited for the subscription's row");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await holder.query("COMMIT");
    return await running;
  } finally {
    await holder.end();
  }
}

/** Operational webhooks: published by the store in the transaction of the change they report (D36). */
export function operationalConformance(backend: () => TestBackend): void {
  describe("operational webhooks", () => {
    it("publishes each change's notice to the operator's subscriptions, never about the operator's own", async () => {
      const store = await backend().open();
      const acme = await store.applications.create({ uid: "acme", name: "Acme" });
      const url = (n: string) => `https://hooks.example/${n}`;
      const [gone, failing, manual] = await Promise.all(
        ["gone", "failing", "manual"].map((n) =>
          store.subscriptions.create({ applicationId: acme.id, url: url(n), token: TOKEN }),
        ),
      );
      // No enabled operator subscription takes the type yet: nothing is written.
      await store.subscriptions.disable(manual!.id, "before anyone listens");
      await store.subscriptions.enable(manual!.id);
      expect(await notices(backend())).toEqual([]);

      const operator = await store.subscriptions.create({
        applicationId: OPERATOR_APPLICATION_ID,
        url: url("operator"),
        token: TOKEN,
        eventTypes: TYPES,
      });
      const published = await store.outbox.publish(EVENT, { application: acme.id });
      expect(published.deliveries).toBe(3);
      await settle(store, (id) =>
        id === gone!.id
          ? { kind: "gone", status: 410, latencyMs: 1 }
          : id === failing!.id
            ? { kind: "failed", status: 500, latencyMs: 1 }
            : { kind: "delivered", status: 200, latencyMs: 1 },
      );
      const failed = (await store.outbox.listDeliveries({ subscriptionId: failing!.id })).items[0]!;
      await store.subscriptions.disable(manual!.id, "by hand");
      await store.subscriptions.disable(manual!.id, "again"); // already disabled: not reported again
      // Its failure started a streak: disabled as failing too long.
      expect(await store.subscriptions.disableFailing(0)).toEqual([failing!.id]);

      const other = await store.applications.create({ uid: "bolt", name: "Bolt" });
      await store.subscriptions.create({ applicationId: other.id, url: url("bolt"), token: TOKEN });
      await store.applications.delete(other.id);

      const base = { applicationId: acme.id };
      expect(await notices(backend())).toEqual([
        {
          type: "subscription.disabled",
          data: { ...base, subscriptionId: gone!.id, url: url("gone"), reason: "gone", detail: GONE_REASON },
          deliveries: 1,
        },
        {
          type: "delivery.exhausted",
          data: {
            deliveryId: failed.id,
            messageId: published.messageId,
            subscriptionId: failing!.id,
            attempt: 1,
            lastStatus: 500,
            lastError: null,
          },
          deliveries: 1,
        },
        {
          type: "subscription.disabled",
          data: {
            ...base,
            subscriptionId: manual!.id,
            url: url("manual"),
            reason: "manual",
            detail: "by hand",
          },
          deliveries: 1,
        },
        {
          type: "subscription.disabled",
          data: {
            ...base,
            subscriptionId: failing!.id,
            url: url("failing"),
            reason: "failing",
            detail: (await store.subscriptions.get(failing!.id))!.disabledReason,
          },
          deliveries: 1,
        },
        {
          type: "application.deleted",
          data: { applicationId: other.id, uid: "bolt", name: "Bolt", subscriptions: 1 },
          deliveries: 1,
        },
      ]);

      // The operator's own endpoint answering 410 and failing for good: disabled, and reported to no one.
      const before = (await notices(backend())).length;
      let first = true;
      await settle(store, () => {
        const outcome = first
          ? ({ kind: "failed", status: 500, latencyMs: 1 } as const)
          : ({ kind: "gone", status: 410, latencyMs: 1 } as const);
        first = false;
        return outcome;
      });
      expect((await store.subscriptions.get(operator.id))?.enabled).toBe(false);
      expect(await notices(backend())).toHaveLength(before);
    });

    it("two senders' 410s for one subscription at once: disabled once, reported once", async () => {
      const b = backend();
      const [one, two] = [await b.open(), await b.open()];
      const sub = await one.subscriptions.create({ url: "https://hooks.example/gone", token: TOKEN });
      await one.subscriptions.create({
        applicationId: OPERATOR_APPLICATION_ID,
        url: "https://hooks.example/operator",
        token: TOKEN,
        eventTypes: TYPES,
      });
      await one.outbox.publish(EVENT);
      await one.outbox.publish('{"id":2,"name":"Moss"}');
      const [a] = await one.outbox.claim(1, LEASE);
      const [c] = await two.outbox.claim(1, { ...LEASE, workerId: "w2" });
      expect([a?.subscription.id, c?.subscription.id]).toEqual([sub.id, sub.id]);
      const gone = { kind: "gone", status: 410, latencyMs: 1 } as const;
      await raceAtSubscription(b, sub.id, () =>
        Promise.all([one.outbox.record(a!, gone), two.outbox.record(c!, gone)]),
      );
      expect((await one.subscriptions.get(sub.id))?.enabled).toBe(false);
      expect((await notices(b)).filter((n) => n.type === "subscription.disabled")).toHaveLength(1);
    }, 60_000);
  });
}
