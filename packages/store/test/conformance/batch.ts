import { MAX_BATCH_EVENTS } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { InvalidBatchError, type Store, StoreInputError } from "../../src/index.js";
import { NEW_PLANT, PLANT_SOLD, TEST_CATALOG, type TestBackend } from "../support/backends.js";

const LEASE = { leaseMs: 30_000, workerId: "w1" };

async function counts(store: Store) {
  const stats = await store.outbox.stats();
  return {
    pending: stats.pending,
    messages: (await store.outbox.listDeliveries({ limit: 1000 })).items.length,
  };
}

/** Batch publish (`outbox.publishMany`): one transaction, all or nothing, per-event keys, types and traces. */
export function batchConformance(backend: () => TestBackend): void {
  describe("outbox.publishMany", () => {
    it("stores every event in order, each with its type, key and trace, and fans each out to its subscribers", async () => {
      const store = await backend().open();
      const everything = await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      const sales = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: "psk_b",
        eventTypes: ["plantSold"],
      });
      const carrier = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
      const results = await store.outbox.publishMany(
        [
          { event: NEW_PLANT(1), idempotencyKey: "plant-1", traceContext: carrier },
          { event: PLANT_SOLD(9_223_372_036_854_775_807n), eventType: "plantSold" },
          { event: { id: 3, name: "Moss" } },
        ],
        { catalog: TEST_CATALOG },
      );
      expect(results.map((r) => [r.duplicate, r.deliveries])).toEqual([
        [false, 1],
        [false, 2],
        [false, 1],
      ]);
      const ids = results.map((r) => r.messageId);
      expect([...ids].sort()).toEqual(ids);
      const sale = (await store.outbox.getMessage(ids[1] as string))!;
      expect(sale.eventType).toBe("plantSold");
      expect(Buffer.from(sale.body).toString()).toBe('{"plantId":9223372036854775807,"price":12.5}');
      const first = (await store.outbox.getMessage(ids[0] as string))!;
      expect([first.idempotencyKey, first.traceContext, Buffer.from(first.body).toString()]).toEqual([
        "plant-1",
        carrier,
        NEW_PLANT(1),
      ]);
      const claimed = await store.outbox.claim(10, LEASE);
      expect(claimed.map((d) => [d.message.id, d.subscription.id]).sort()).toEqual(
        [
          [ids[0], everything.id],
          [ids[1], everything.id],
          [ids[1], sales.id],
          [ids[2], everything.id],
        ].sort(),
      );
      expect(claimed.find((d) => d.message.id === ids[0])?.message.traceContext).toEqual(carrier);
    });

    it("answers a key stored before, or used earlier in the batch for the same event, with that message", async () => {
      const store = await backend().open();
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      await store.subscriptions.create({ url: "https://b.example/hook", token: "psk_b" });
      const earlier = await store.outbox.publish(NEW_PLANT(1), { idempotencyKey: "k1" });
      const results = await store.outbox.publishMany([
        { event: NEW_PLANT(1), idempotencyKey: "k1" },
        { event: NEW_PLANT(2), idempotencyKey: "k2" },
        { event: NEW_PLANT(2), idempotencyKey: "k2" },
        { event: NEW_PLANT(3) },
      ]);
      expect(results.map((r) => [r.messageId, r.duplicate, r.deliveries])).toEqual([
        [earlier.messageId, true, 2],
        [results[1]?.messageId, false, 2],
        [results[1]?.messageId, true, 2],
        [results[3]?.messageId, false, 2],
      ]);
      expect(results[1]?.messageId).not.toBe(results[3]?.messageId);
      // Three messages, each fanned out once: the duplicates added nothing.
      expect(await counts(store)).toEqual({ pending: 6, messages: 6 });
      // Publishing the same batch again stores nothing new and answers the same messages.
      const again = await store.outbox.publishMany([
        { event: NEW_PLANT(1), idempotencyKey: "k1" },
        { event: NEW_PLANT(2), idempotencyKey: "k2" },
      ]);
      expect(again.map((r) => [r.messageId, r.duplicate])).toEqual([
        [earlier.messageId, true],
        [results[1]?.messageId, true],
      ]);
      expect(await counts(store)).toEqual({ pending: 6, messages: 6 });
    });

    it("stores nothing when any event is refused, and names every refused index with its code and pointers", async () => {
      const store = await backend().open();
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      const error = await store.outbox
        .publishMany([
          { event: NEW_PLANT(1) },
          { event: { id: 2 } },
          { event: NEW_PLANT(3), idempotencyKey: " spaced" },
          { event: NEW_PLANT(4), eventType: "plantEaten" },
          { event: "{not json" },
          { event: NEW_PLANT(6), traceContext: { traceparent: "x".repeat(5000) } },
          { event: NEW_PLANT(7) },
        ])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidBatchError);
      expect(error).toBeInstanceOf(StoreInputError);
      const problems = (error as InvalidBatchError).problems;
      expect(problems.map((p) => [p.index, p.code])).toEqual([
        [1, "invalid_event"],
        [2, "invalid_idempotency_key"],
        [3, "unknown_event_type"],
        [4, "invalid_event"],
        [5, "invalid_trace_context"],
      ]);
      expect(problems[0]?.issues?.map((i) => i.pointer)).toContain("/name");
      expect((error as Error).message).toContain("index 1");
      expect(await counts(store)).toEqual({ pending: 0, messages: 0 });
    });

    it("refuses the whole batch when a key names a different event, stored before or earlier in the batch", async () => {
      const store = await backend().open();
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      await store.outbox.publish(NEW_PLANT(1), { idempotencyKey: "k1" });
      const stored = await store.outbox
        .publishMany([
          { event: NEW_PLANT(2) },
          { event: NEW_PLANT(9), idempotencyKey: "k1" },
          { event: NEW_PLANT(3) },
        ])
        .catch((e: unknown) => e);
      expect((stored as InvalidBatchError).problems.map((p) => [p.index, p.code])).toEqual([
        [1, "idempotency_conflict"],
      ]);
      const inBatch = await store.outbox
        .publishMany([
          { event: NEW_PLANT(4), idempotencyKey: "k4" },
          { event: NEW_PLANT(5), idempotencyKey: "k4" },
        ])
        .catch((e: unknown) => e);
      expect((inBatch as InvalidBatchError).problems).toMatchObject([
        { index: 1, code: "idempotency_conflict", message: expect.stringContaining("index 0") },
      ]);
      expect(await counts(store)).toEqual({ pending: 1, messages: 1 });
    });

    it(`takes up to MAX_BATCH_EVENTS (${MAX_BATCH_EVENTS}) events and refuses one more; an empty batch stores nothing`, async () => {
      const store = await backend().open();
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      expect(await store.outbox.publishMany([])).toEqual([]);
      const many = Array.from({ length: MAX_BATCH_EVENTS + 1 }, (_, i) => ({ event: NEW_PLANT(i + 1) }));
      await expect(store.outbox.publishMany(many)).rejects.toMatchObject({ code: "batch_too_large" });
      expect((await store.outbox.stats()).pending).toBe(0);
      const results = await store.outbox.publishMany(many.slice(0, MAX_BATCH_EVENTS));
      expect(results).toHaveLength(MAX_BATCH_EVENTS);
      expect(new Set(results.map((r) => r.messageId)).size).toBe(MAX_BATCH_EVENTS);
      expect((await store.outbox.stats()).pending).toBe(MAX_BATCH_EVENTS);
    });

    it("wakes an idle worker once the batch is stored", async () => {
      const store = await backend().open();
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      expect(await store.outbox.claim(1, LEASE)).toEqual([]);
      expect(await store.outbox.waitForWork(undefined, 50)).toBe(false);
      const woken = store.outbox.waitForWork(undefined, 20_000);
      setTimeout(() => void store.outbox.publishMany([{ event: NEW_PLANT(1) }, { event: NEW_PLANT(2) }]), 50);
      expect(await woken).toBe(true);
      expect(await store.outbox.claim(5, LEASE)).toHaveLength(2);
    });
  });
}
