import { describe, expect, it } from "vitest";
import { StoreConfigError } from "../../src/index.js";
import { PG_SCHEMA_VERSION } from "../../src/pg/migrations.js";
import { SQLITE_SCHEMA_VERSION } from "../../src/sqlite/migrations.js";
import { manualClock, type TestBackend } from "../support/backends.js";
import { schemaShape } from "../support/schema-shape.js";

const FIXTURE_NOW = 1_735_689_700_000;

/** Migrations: idempotent, concurrent-safe, refuse newer schemas, upgrade a v1 database. */
export function migrationConformance(backend: () => TestBackend, create: () => TestBackend): void {
  describe("migrations", () => {
    const latest = () => (backend().kind === "sqlite" ? SQLITE_SCHEMA_VERSION : PG_SCHEMA_VERSION);
    const versions = async () =>
      (await backend().sql("SELECT version, applied_at FROM {t}schema_migrations ORDER BY version")).map(
        (r) => [Number(r.version), Number(r.applied_at)],
      );

    it("applies every migration once, and reopening changes nothing", async () => {
      const clock = manualClock();
      await (await backend().open({ now: clock.now })).close();
      const first = await versions();
      expect(first.map(([v]) => v)).toEqual(Array.from({ length: latest() }, (_, i) => i + 1));
      clock.advance(1000);
      await (await backend().open({ now: clock.now })).close();
      expect(await versions()).toEqual(first);
    });

    it("lets several instances start at once on a new database", async () => {
      const stores = await Promise.all(Array.from({ length: 4 }, () => backend().open()));
      expect((await versions()).map(([v]) => v)).toEqual(Array.from({ length: latest() }, (_, i) => i + 1));
      await Promise.all(stores.map((s) => s.ping()));
    });

    it("refuses a schema newer than the package, and an outdated one when migrate is off", async () => {
      await (await backend().open()).close();
      await backend().sql(
        "INSERT INTO {t}schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)",
      );
      const error = await backend()
        .open()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreConfigError);
      expect(error).toMatchObject({ code: "schema_too_new" });
      const fresh = create();
      try {
        await expect(fresh.open({ migrate: false })).rejects.toMatchObject({ code: "schema_outdated" });
      } finally {
        await fresh.cleanup();
      }
    });

    it("upgrades a version 1 database and keeps its data", async () => {
      const b = backend();
      await b.loadFixture(b.kind === "sqlite" ? "sqlite-v1.sql" : "pg-v1.sql");
      const counted = async () => {
        const rows: number[] = [];
        for (const table of ["subscriptions", "messages", "deliveries", "delivery_attempts"]) {
          const [row] = await b.sql(`SELECT count(*) AS n FROM {t}${table}`);
          rows.push(Number(row.n));
        }
        return rows;
      };
      const before = await counted();
      const store = await b.open({ now: () => FIXTURE_NOW });
      // Applications: every subscription, message, delivery and attempt is kept; the subscriptions are the
      // default application's.
      expect(await counted()).toEqual(before);
      expect(before.every((n) => n > 0)).toBe(true);
      const subs = await store.subscriptions.list();
      expect(subs.map((sub) => [sub.applicationId, sub.uid, sub.description, sub.metadata])).toEqual(
        subs.map(() => ["app_default", null, "", {}]),
      );
      expect((await store.applications.list()).map((app) => app.uid)).toEqual(["default", "operator"]);
      expect((await store.applications.reads("app_default").listSubscriptions()).length).toBe(subs.length);
      expect((await versions()).map(([v]) => v)).toEqual(Array.from({ length: latest() }, (_, i) => i + 1));

      // Counters were backfilled from the existing rows.
      expect(await store.outbox.stats()).toMatchObject({ pending: 3, leased: 0, delivered: 2, failed: 1 });
      expect(await store.inbox.count()).toBe(2);
      expect(await store.inbox.count({ processed: false })).toBe(1);
      const sub = await store.subscriptions.get("sub_01JFIXTURE00000000000000A1");
      expect(sub).toMatchObject({
        token: "psk_FixtureTokenA",
        secrets: [{ secret: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" }],
      });
      expect((await store.subscriptions.get("sub_01JFIXTURE00000000000000B2"))!.failingSince).toEqual(
        new Date(1_735_689_605_000),
      );

      // Everything written before event types existed was New Plant, and every subscription received it.
      expect((await store.inbox.list()).items.map((e) => e.eventType)).toEqual(["newPlant", "newPlant"]);
      expect((await store.inbox.list({ type: "newPlant" })).items).toHaveLength(2);
      expect((await store.subscriptions.list()).every((sub) => sub.eventTypes === null)).toBe(true);

      const claimed = await store.outbox.claim(10, { leaseMs: 1000, workerId: "w" });
      expect(claimed.map((d) => [d.id, d.attempt])).toEqual([
        [5, 1],
        [6, 1],
        [4, 3],
      ]);
      expect(claimed[0]!.subscription.token).toBe("psk_FixtureTokenA");
      expect(claimed.map((d) => d.message.eventType)).toEqual(["newPlant", "newPlant", "newPlant"]);
      await store.outbox.record(claimed[2]!, { kind: "delivered", status: 200, latencyMs: 5 });
      expect((await store.outbox.listAttempts(4)).map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(await store.outbox.stats()).toMatchObject({ pending: 0, leased: 2, delivered: 3, failed: 1 });
      const published = await store.outbox.publish('{"id":4,"name":"Yew"}');
      expect(published.deliveries).toBe(2);
      expect((await store.outbox.listDeliveries({ limit: 1 })).items[0]!.id).toBe(8);

      // The upgraded schema is the one a new database gets.
      const fresh = create();
      try {
        await (await fresh.open()).close();
        expect(await schemaShape(b)).toEqual(await schemaShape(fresh));
      } finally {
        await fresh.cleanup();
      }
    });
  });
}
