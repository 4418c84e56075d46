import { describe, expect, it } from "vitest";
import { manualClock, type TestBackend } from "../support/backends.js";

const DAY = 86_400_000;

export function retentionConformance(backend: () => TestBackend): void {
  describe("retention (purge)", () => {
    it("deletes old inbox events and finished messages in bounded batches; keeps the new and the unfinished", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const sub = await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      for (let i = 0; i < 5; i++)
        await store.inbox.record({ webhookId: `msg_old_${i}`, body: "{}", receivedAt: clock.t });
      const finished = await store.outbox.publish({ id: 1, name: "Done" });
      const unfinished = await store.outbox.publish({ id: 2, name: "Waiting" });
      const claimed = await store.outbox.claim(10, { leaseMs: 60_000, workerId: "w" });
      const done = claimed.find((d) => d.message.id === finished.messageId)!;
      await store.outbox.record(done, { kind: "delivered", status: 200, latencyMs: 1 });
      expect(await store.outbox.listAttempts(done.id)).toHaveLength(1);
      const waiting = claimed.find((d) => d.message.id === unfinished.messageId)!;
      await store.outbox.record(waiting, {
        kind: "retry",
        retryAt: clock.t + 60 * DAY,
        status: 500,
        latencyMs: 1,
      });

      clock.advance(31 * DAY);
      await store.inbox.record({ webhookId: "msg_new", body: "{}", receivedAt: clock.t });
      const fresh = await store.outbox.publish({ id: 3, name: "New" });
      const before = clock.t - 30 * DAY;

      // Batches of 2: the five old events take three calls, `more` says when to call again.
      const first = await store.purge({ before, batchSize: 2 });
      expect(first).toEqual({ inboxEvents: 2, messages: 1, more: true });
      expect(await store.purge({ before, batchSize: 2 })).toEqual({
        inboxEvents: 2,
        messages: 0,
        more: true,
      });
      expect(await store.purge({ before, batchSize: 2 })).toEqual({
        inboxEvents: 1,
        messages: 0,
        more: false,
      });
      expect(await store.purge({ before, batchSize: 2 })).toEqual({
        inboxEvents: 0,
        messages: 0,
        more: false,
      });

      expect((await store.inbox.list({ limit: 100 })).items.map((e) => e.webhookId)).toEqual(["msg_new"]);
      expect(await store.outbox.getMessage(finished.messageId)).toBeNull();
      expect(await store.outbox.getDelivery(done.id)).toBeNull(); // with its attempts
      expect(await store.outbox.listAttempts(done.id)).toEqual([]);
      // Still being retried: kept, however old.
      expect(await store.outbox.getMessage(unfinished.messageId)).not.toBeNull();
      expect(await store.outbox.getMessage(fresh.messageId)).not.toBeNull();
      expect((await store.outbox.listDeliveries({ subscriptionId: sub.id })).items).toHaveLength(2);
      await expect(store.purge({ before, batchSize: 0 })).rejects.toMatchObject({ code: "invalid_argument" });
    });

    it("deleting a subscription deletes its deliveries with their attempts", async () => {
      const store = await backend().open();
      const gone = await store.subscriptions.create({ url: "https://gone.example/hook", token: "psk_a" });
      const kept = await store.subscriptions.create({ url: "https://kept.example/hook", token: "psk_a" });
      await store.outbox.publish({ id: 1, name: "Monstera" });
      const claimed = await store.outbox.claim(10, { leaseMs: 60_000, workerId: "w" });
      expect(claimed).toHaveLength(2);
      for (const d of claimed)
        await store.outbox.record(d, { kind: "retry", retryAt: Date.now() + DAY, status: 500, latencyMs: 1 });
      const of = (id: string) => claimed.find((d) => d.subscription.id === id)!.id;
      expect(await store.outbox.listAttempts(of(gone.id))).toHaveLength(1);

      expect(await store.subscriptions.delete(gone.id)).toBe(true);
      expect(await store.outbox.getDelivery(of(gone.id))).toBeNull();
      expect(await store.outbox.listAttempts(of(gone.id))).toEqual([]);
      expect(await store.outbox.listAttempts(of(kept.id))).toHaveLength(1);
    });
  });
}
