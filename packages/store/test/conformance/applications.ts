import { describe, expect, it } from "vitest";
import { DEFAULT_APPLICATION_ID, PORTAL_TTL_MAX_MS, type Store } from "../../src/index.js";
import { manualClock, type TestBackend } from "../support/backends.js";

const TOKEN = "psk_TestTokenValue0001";
const EVENT = '{"id":1,"name":"Fern"}';

async function twoApplications(store: Store) {
  const a = await store.applications.create({ uid: "cust-a", name: "Acme", metadata: { tier: "gold" } });
  const b = await store.applications.create({ uid: "cust-b", name: "Bolt" });
  const subA = await store.subscriptions.create({
    applicationId: a.id,
    url: "https://a.example/hook",
    token: TOKEN,
    uid: "main",
    description: "A's endpoint",
    metadata: { team: "a" },
  });
  const subB = await store.subscriptions.create({
    applicationId: b.id,
    url: "https://b.example/hook",
    token: TOKEN,
  });
  return { a, b, subA, subB };
}

/** Applications: CRUD, scoped publishes and idempotency keys, portal tokens, reads scoped to one application. */
export function applicationConformance(backend: () => TestBackend): void {
  describe("applications", () => {
    it("creates, finds by id or uid, updates and refuses a taken uid", async () => {
      const store = await backend().open();
      const { a, subA } = await twoApplications(store);
      expect(a).toMatchObject({ uid: "cust-a", name: "Acme", metadata: { tier: "gold" } });
      expect(a.id).toMatch(/^app_/);
      expect((await store.applications.get("cust-a"))?.id).toBe(a.id);
      expect((await store.applications.get(a.id))?.uid).toBe("cust-a");
      expect((await store.applications.list()).map((x) => x.uid)).toEqual([
        "default",
        "operator",
        "cust-a",
        "cust-b",
      ]);
      await expect(store.applications.create({ uid: "cust-a", name: "Again" })).rejects.toMatchObject({
        code: "uid_taken",
      });
      await expect(store.applications.update(a.id, { uid: "cust-b" })).rejects.toMatchObject({
        code: "uid_taken",
      });
      await expect(store.applications.create({ uid: "app_x", name: "X" })).rejects.toMatchObject({
        code: "invalid_uid",
      });
      expect(await store.applications.update(a.id, { name: "Acme Ltd" })).toMatchObject({
        name: "Acme Ltd",
        uid: "cust-a",
        metadata: { tier: "gold" },
      });
      expect(subA).toMatchObject({
        applicationId: a.id,
        uid: "main",
        description: "A's endpoint",
        metadata: { team: "a" },
      });
      await expect(
        store.subscriptions.create({
          applicationId: a.id,
          url: "https://a.example/2",
          token: TOKEN,
          uid: "main",
        }),
      ).rejects.toMatchObject({ code: "uid_taken" });
      await expect(
        store.subscriptions.create({ applicationId: "app_nope", url: "https://a.example/2", token: TOKEN }),
      ).rejects.toMatchObject({ code: "not_found" });
      const plain = await store.subscriptions.create({ url: "https://d.example/hook", token: TOKEN });
      expect(plain).toMatchObject({
        applicationId: DEFAULT_APPLICATION_ID,
        uid: null,
        description: "",
        metadata: {},
      });
      expect(await store.subscriptions.update(subA.id, { description: "new", metadata: {} })).toMatchObject({
        uid: "main",
        description: "new",
        metadata: {},
      });
    });

    it("publishes to one application only, and keeps each application's idempotency keys apart", async () => {
      const store = await backend().open();
      const { a, b, subA, subB } = await twoApplications(store);
      expect((await store.outbox.publish(EVENT)).deliveries).toBe(2);
      const toA = await store.outbox.publish(EVENT, { application: "cust-a", idempotencyKey: "k1" });
      expect(toA.deliveries).toBe(1);
      const toB = await store.outbox.publish(EVENT, { application: b.id, idempotencyKey: "k1" });
      expect(toB).toMatchObject({ duplicate: false, deliveries: 1 });
      expect(toB.messageId).not.toBe(toA.messageId);
      const again = await store.outbox.publish(EVENT, { application: a.id, idempotencyKey: "k1" });
      expect(again).toMatchObject({ duplicate: true, messageId: toA.messageId, deliveries: 1 });
      const unscoped = await store.outbox.publish(EVENT, { idempotencyKey: "k1" });
      expect(unscoped).toMatchObject({ duplicate: false, deliveries: 2 });
      expect((await store.outbox.getMessage(toA.messageId))?.idempotencyKey).toBe("k1");
      const ofMessage = await store.outbox.listDeliveries({ messageId: toA.messageId });
      expect(ofMessage.items.map((d) => d.subscriptionId)).toEqual([subA.id]);
      expect((await store.outbox.listDeliveries({ messageId: toB.messageId })).items[0]?.subscriptionId).toBe(
        subB.id,
      );
      await expect(store.outbox.publish(EVENT, { application: "nobody" })).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("reads one application's rows only: another's are not found, as if they did not exist", async () => {
      const store = await backend().open();
      const { a, b, subA, subB } = await twoApplications(store);
      await store.outbox.publish(EVENT);
      const onlyB = await store.outbox.publish(EVENT, { application: b.id });
      const reads = store.applications.reads(a.id);
      expect((await reads.listSubscriptions()).map((s) => s.id)).toEqual([subA.id]);
      expect(await reads.getSubscription(subB.id)).toBeNull();
      expect((await reads.getSubscription(subA.id))?.url).toBe("https://a.example/hook");
      const page = await reads.listDeliveries();
      expect(page.items.map((d) => d.subscriptionId)).toEqual([subA.id]);
      const ofB = (await store.outbox.listDeliveries({ subscriptionId: subB.id })).items;
      expect(ofB).toHaveLength(2);
      for (const d of ofB) expect(await reads.getDelivery(d.id)).toBeNull();
      expect((await reads.getDelivery(page.items[0]!.id))?.id).toBe(page.items[0]!.id);
      expect((await reads.listDeliveries({ subscriptionId: subB.id })).items).toEqual([]);
      expect(await reads.getMessage(onlyB.messageId)).toBeNull();
      expect((await reads.getMessage(page.items[0]!.messageId))?.id).toBe(page.items[0]!.messageId);
    });

    it("hands out portal tokens that expire, are revoked all at once, and are stored only as hashes", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const { a, b } = await twoApplications(store);
      const first = await store.applications.createPortalToken(a.id);
      const second = await store.applications.createPortalToken(a.id, { ttlMs: 60_000 });
      const ofB = await store.applications.createPortalToken(b.id);
      expect(first.token).toMatch(/^pst_/);
      expect(first.expiresAt.getTime() - clock.now()).toBe(3_600_000);
      expect(await store.applications.verifyPortalToken(first.token)).toMatchObject({ applicationId: a.id });
      // One character changed (a 32-byte token's last character is one of 16, 'A' among them: never keep it).
      const altered = `${first.token.slice(0, -1)}${first.token.endsWith("A") ? "E" : "A"}`;
      expect(altered).not.toBe(first.token);
      expect(await store.applications.verifyPortalToken(altered)).toBeNull();
      expect(await store.applications.verifyPortalToken("psk_whatever")).toBeNull();
      const stored = JSON.stringify(await backend().sql("SELECT * FROM {t}portal_tokens"));
      expect(stored).not.toContain(first.token.slice(4));
      clock.advance(60_000);
      expect(await store.applications.verifyPortalToken(second.token)).toBeNull();
      expect(await store.applications.verifyPortalToken(first.token)).not.toBeNull();
      await store.applications.revokePortalTokens(a.id);
      expect(await store.applications.verifyPortalToken(first.token)).toBeNull();
      expect(await store.applications.verifyPortalToken(ofB.token)).toMatchObject({ applicationId: b.id });
      const fresh = await store.applications.createPortalToken(a.id);
      expect(await store.applications.verifyPortalToken(fresh.token)).toMatchObject({ applicationId: a.id });
      await expect(
        store.applications.createPortalToken(a.id, { ttlMs: PORTAL_TTL_MAX_MS + 1 }),
      ).rejects.toMatchObject({ code: "invalid_ttl" });
      await expect(store.applications.createPortalToken("app_nope")).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("deletes an application with its subscriptions and their deliveries, and records it", async () => {
      const store = await backend().open();
      const { a, b, subA, subB } = await twoApplications(store);
      await store.outbox.publish(EVENT);
      const token = await store.applications.createPortalToken(a.id);
      const deleted = await store.applications.delete(a.id);
      expect(deleted).toMatchObject({ id: a.id, uid: "cust-a", name: "Acme", subscriptions: 1 });
      expect(await store.applications.get(a.id)).toBeNull();
      expect(await store.subscriptions.get(subA.id)).toBeNull();
      expect((await store.outbox.listDeliveries({ subscriptionId: subA.id })).items).toEqual([]);
      expect((await store.subscriptions.get(subB.id))?.applicationId).toBe(b.id);
      expect(await store.applications.verifyPortalToken(token.token)).toBeNull();
      const claimed = await store.outbox.claim(10, { leaseMs: 1000, workerId: "w" });
      expect(claimed.map((d) => d.subscription.id)).toEqual([subB.id]);
      expect((await store.applications.listDeletions()).map((d) => [d.id, d.subscriptions])).toEqual([
        [a.id, 1],
      ]);
      expect(await store.applications.delete(a.id)).toBeNull();
      await expect(store.applications.delete(DEFAULT_APPLICATION_ID)).rejects.toMatchObject({
        code: "invalid_application",
      });
    });
  });
}
