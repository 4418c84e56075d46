import { REFUSED_TARGET_HEADERS } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { manualClock, type TestBackend } from "../support/backends.js";

const TOKEN = "psk_TestTokenValue0001";
const SENDER = { leaseMs: 30_000, workerId: "w1" };

/** A subscription's endpoint options (rate limit, headers): kept, checked, and applied by the sender's claim. */
export function subscriptionOptionConformance(backend: () => TestBackend): void {
  describe("subscription endpoint options", () => {
    it("keeps a rate limit and headers (names lower-cased), changes and clears them", async () => {
      const store = await backend().open();
      const plain = await store.subscriptions.create({ url: "https://a.example/hook", token: TOKEN });
      expect(plain).toMatchObject({ rateLimit: null, headers: {} });
      const sub = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: TOKEN,
        rateLimit: 2.5,
        headers: { "X-Tenant": "t1" },
      });
      expect(sub).toMatchObject({ rateLimit: 2.5, headers: { "x-tenant": "t1" } });
      expect(await store.subscriptions.get(sub.id)).toMatchObject({
        rateLimit: 2.5,
        headers: { "x-tenant": "t1" },
      });
      const moved = await store.subscriptions.update(sub.id, { url: "https://c.example/hook" });
      expect(moved).toMatchObject({ rateLimit: 2.5, headers: { "x-tenant": "t1" } });
      const cleared = await store.subscriptions.update(sub.id, { rateLimit: null, headers: null });
      expect(cleared).toMatchObject({ rateLimit: null, headers: {} });
      expect((await store.subscriptions.list()).map((s) => s.rateLimit)).toEqual([null, null]);
      await store.close();
    });

    it("refuses core's refused headers, authorization (the bearer token's) and a rate limit out of range", async () => {
      const store = await backend().open();
      const sub = await store.subscriptions.create({ url: "https://a.example/hook", token: TOKEN });
      for (const name of [...REFUSED_TARGET_HEADERS, "Authorization", "Host"]) {
        await expect(
          store.subscriptions.create({ url: "https://b.example/", token: TOKEN, headers: { [name]: "x" } }),
        ).rejects.toMatchObject({
          code: "invalid_headers",
          message: expect.stringContaining(name.toLowerCase()),
        });
        await expect(store.subscriptions.update(sub.id, { headers: { [name]: "x" } })).rejects.toMatchObject({
          code: "invalid_headers",
        });
      }
      for (const rateLimit of [0, -1, 10_001, Number.NaN, "5" as never]) {
        await expect(store.subscriptions.update(sub.id, { rateLimit })).rejects.toMatchObject({
          code: "invalid_rateLimit",
        });
      }
      expect(await store.subscriptions.get(sub.id)).toMatchObject({ rateLimit: null, headers: {} });
      expect(await store.subscriptions.list()).toHaveLength(1);
      await store.close();
    });

    it("the claim spaces a limited subscription's sends, leaves an unlimited one at full speed, adds headers", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const slow = await store.subscriptions.create({
        url: "https://slow.example/",
        token: TOKEN,
        rateLimit: 5,
        headers: { "x-tenant": "slow" },
      });
      const fast = await store.subscriptions.create({ url: "https://fast.example/", token: TOKEN });
      for (let i = 0; i < 20; i++) await store.outbox.publish({ id: i + 1, name: "Fern" });
      const start = clock.now();
      const first = await store.outbox.claim(100, SENDER);
      const ofSlow = first.filter((d) => d.subscription.id === slow.id);
      const ofFast = first.filter((d) => d.subscription.id === fast.id);
      expect(ofFast).toHaveLength(20);
      expect(
        ofFast.every((d) => d.notBefore === null && Object.keys(d.subscription.headers ?? {}).length === 0),
      ).toBe(true);
      // 5/s over a one-second horizon: sends at +0, +200, … +1000 ms
      expect(ofSlow.map((d) => (d.notBefore ? d.notBefore.getTime() : start) - start)).toEqual([
        0, 200, 400, 600, 800, 1000,
      ]);
      expect(ofSlow[0]?.subscription.headers).toEqual({ "x-tenant": "slow" });
      expect(await store.outbox.claim(100, { ...SENDER, workerId: "w2" })).toEqual([]);
      clock.advance(1000);
      const next = await store.outbox.claim(100, SENDER);
      expect(next[0]?.notBefore?.getTime()).toBe(start + 1200);
      expect(next.every((d) => d.subscription.id === slow.id)).toBe(true);
      await store.close();
    });

    it("a limited subscription is not starved by an unlimited backlog larger than every claim", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const busy = await store.subscriptions.create({ url: "https://busy.example/", token: TOKEN });
      for (let i = 0; i < 30; i++) await store.outbox.publish({ id: i + 1, name: "Fern" });
      // Created after the backlog: its rows are the newest due, behind 30 of the busy one's.
      const limited = await store.subscriptions.create({
        url: "https://limited.example/",
        token: TOKEN,
        rateLimit: 2,
      });
      await store.outbox.publish({ id: 31, name: "Fern" });
      const claimed = await store.outbox.claim(10, SENDER);
      expect(claimed).toHaveLength(10);
      expect(claimed.filter((d) => d.subscription.id === limited.id)).toHaveLength(1);
      expect(claimed.filter((d) => d.subscription.id === busy.id)).toHaveLength(9);
      // The limit still spaces it, whoever comes first.
      await store.outbox.publish({ id: 32, name: "Fern" });
      await store.outbox.publish({ id: 33, name: "Fern" });
      const again = await store.outbox.claim(10, { ...SENDER, workerId: "w2" });
      const spaced = again.filter((d) => d.subscription.id === limited.id);
      expect(spaced.map((d) => (d.notBefore?.getTime() ?? clock.now()) - clock.now())).toEqual([500, 1000]);
      await store.close();
    });

    it("when the claim's second part fails, the rows the first part leased are handed out and the error comes next", async () => {
      const clock = manualClock();
      const b = backend();
      const store = await b.open({ now: clock.now });
      const busy = await store.subscriptions.create({ url: "https://busy.example/", token: TOKEN });
      const limited = await store.subscriptions.create({
        url: "https://limited.example/",
        token: TOKEN,
        rateLimit: 2,
      });
      await store.outbox.publish({ id: 1, name: "Fern" });
      // The ordinary claim (the second part) fails on the busy subscription's row; the limited claim does not.
      if (b.kind === "sqlite") {
        await b.sql(`CREATE TRIGGER fail_busy BEFORE UPDATE ON deliveries
          WHEN NEW.subscription_id = '${busy.id}' AND NEW.state = 'leased'
          BEGIN SELECT RAISE(ABORT, 'injected claim failure'); END`);
      } else {
        await b.sql(`CREATE FUNCTION {t}fail_busy() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN
          IF NEW.subscription_id = '${busy.id}' AND NEW.state = 'leased' THEN RAISE EXCEPTION 'injected claim failure';
          END IF; RETURN NEW; END $f$`);
        await b.sql(
          "CREATE TRIGGER fail_busy BEFORE UPDATE ON {t}deliveries FOR EACH ROW EXECUTE FUNCTION {t}fail_busy()",
        );
      }
      const first = await store.outbox.claim(10, SENDER);
      expect(first.map((d) => d.subscription.id)).toEqual([limited.id]);
      await expect(store.outbox.claim(10, SENDER)).rejects.toThrow(/injected claim failure/);
      await b.sql(b.kind === "sqlite" ? "DROP TRIGGER fail_busy" : "DROP TRIGGER fail_busy ON {t}deliveries");
      const after = await store.outbox.claim(10, SENDER);
      expect(after.map((d) => d.subscription.id)).toEqual([busy.id]);
      await store.close();
    });

    it("a limit set by another process holds at once: the one-statement claim passes its rows over", async () => {
      const clock = manualClock();
      const here = backend();
      const store = await here.open({ now: clock.now });
      const other = await here.open({ now: clock.now });
      const sub = await store.subscriptions.create({ url: "https://a.example/", token: TOKEN });
      await store.outbox.publish({ id: 1, name: "Fern" });
      expect(await store.outbox.claim(10, SENDER)).toHaveLength(1); // this process now knows: no limits
      await other.subscriptions.update(sub.id, { rateLimit: 1 });
      for (let i = 0; i < 5; i++) await store.outbox.publish({ id: i + 2, name: "Fern" });
      expect(await store.outbox.claim(10, SENDER)).toEqual([]);
      await store.subscriptions.update(sub.id, { rateLimit: 1 }); // this process's own change: it looks again
      const spaced = await store.outbox.claim(10, SENDER);
      expect(spaced.map((d) => (d.notBefore?.getTime() ?? clock.now()) - clock.now())).toEqual([0, 1000]);
      await other.close();
      await store.close();
    });
  });
}
