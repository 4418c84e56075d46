import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ConsumedEvent, Store } from "../../src/index.js";
import type { TestBackend } from "../support/backends.js";

const RECEIVER = { leaseMs: 30_000, workerId: "rx", scope: "receiver" } as const;

let seq = 0;
/** Records an event with a fresh webhook id and a JSON body naming it. */
async function receive(store: Store, eventType?: string): Promise<string> {
  const webhookId = `msg_consume${++seq}_${randomBytes(4).toString("hex")}`;
  await store.inbox.record({ webhookId, body: Buffer.from(`{"n":${seq}}`), eventType });
  return webhookId;
}

/** Resolves when `check` holds, polling on the event loop (evidence, not a fixed sleep). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 5));
}

/** A gate handlers wait on until it opens. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

/** `inbox.consume`: the outbox's engine in-process, on a receiver target of its own. */
export function consumeConformance(backend: () => TestBackend): void {
  describe("inbox.consume", () => {
    it("hands every event recorded after registration (of its types) to the handler once", async () => {
      const store = await backend().open();
      const before = await receive(store);
      const seen: ConsumedEvent[] = [];
      const stop = new AbortController();
      const consumer = await store.inbox.consume({
        name: "orders",
        types: ["newPlant"],
        handler: (event) => {
          seen.push(event);
        },
        signal: stop.signal,
        pollMs: 10,
      });
      expect(consumer.id).toMatch(/^dst_/);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(await receive(store));
      await receive(store, "otherType");
      const delivered = async () =>
        (await store.outbox.listDeliveries({ subscriptionId: consumer.id, state: "delivered" })).items;
      await until(async () => (await delivered()).length >= ids.length);
      expect(await delivered()).toHaveLength(ids.length);
      expect(seen.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(seen.every((e) => e.type === "newPlant" && e.attempt === 1)).toBe(true);
      expect(seen[0]?.json()).toMatchObject({ n: expect.any(Number) });
      expect(seen.map((e) => e.id)).not.toContain(before);
      await until(async () => (await store.inbox.get(ids[0] as string))?.processedAt != null);
      stop.abort();
      await consumer.stopped;
      expect(seen).toHaveLength(ids.length);
      await store.close();
    }, 30_000);

    it("retries a throwing handler on the schedule, then fails the event", async () => {
      const store = await backend().open();
      const stop = new AbortController();
      let calls = 0;
      const consumer = await store.inbox.consume({
        handler: () => {
          calls++;
          throw new Error("not today");
        },
        schedule: [0, 1, 1],
        signal: stop.signal,
        pollMs: 5,
      });
      const id = await receive(store);
      const failed = async () => {
        const page = await store.outbox.listDeliveries({ subscriptionId: consumer.id, state: "failed" });
        return page.items;
      };
      await until(async () => (await failed()).length === 1);
      const [delivery] = await failed();
      const attempts = await store.outbox.listAttempts(delivery?.id ?? 0);
      expect(attempts.length).toBeGreaterThan(1);
      expect(calls).toBe(attempts.length);
      expect(attempts.every((a) => /not today/.test(a.error ?? ""))).toBe(true);
      expect((await store.inbox.get(id))?.processedAt).toBeNull();
      stop.abort();
      await consumer.stopped;
      await store.close();
    }, 30_000);

    it("two processes consuming one name share the events without handling one twice", async () => {
      const one = await backend().open();
      const two = await backend().open();
      const stop = new AbortController();
      const held = gate();
      const handled: string[] = [];
      let running = 0;
      let peak = 0;
      const handler = async (event: ConsumedEvent) => {
        running++;
        peak = Math.max(peak, running);
        await held.opened;
        handled.push(event.id);
        running--;
      };
      const options = { name: "shared", handler, signal: stop.signal, pollMs: 5, concurrency: 1 };
      const a = await one.inbox.consume(options);
      const b = await two.inbox.consume(options);
      expect(b.id).toBe(a.id);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await receive(one));
      // Each process runs one handler at a time: two at once means both took a share.
      await until(() => running === 2);
      held.open();
      await until(() => handled.length >= ids.length);
      stop.abort();
      await Promise.all([a.stopped, b.stopped]);
      expect(peak).toBe(2);
      expect(handled).toHaveLength(ids.length);
      expect(new Set(handled)).toEqual(new Set(ids));
      await one.close();
      await two.close();
    }, 30_000);

    it("stops on its signal after the handlers in flight finish", async () => {
      const store = await backend().open();
      const stop = new AbortController();
      const held = gate();
      let started = 0;
      const consumer = await store.inbox.consume({
        handler: async () => {
          started++;
          await held.opened;
        },
        signal: stop.signal,
        pollMs: 5,
      });
      const id = await receive(store);
      await until(() => started === 1);
      let stopped = false;
      void consumer.stopped.then(() => {
        stopped = true;
      });
      stop.abort();
      await new Promise((r) => setImmediate(r));
      expect(stopped).toBe(false);
      held.open();
      await consumer.stopped;
      await until(async () => (await store.inbox.get(id))?.processedAt != null);
      await receive(store);
      // Queued for it, not handled: its depth (an untaken event on SQLite, a pending row on PostgreSQL).
      const stats = (await store.destinations.stats()).find((s) => s.destinationId === consumer.id);
      expect(stats?.depth).toBe(1);
      expect(started).toBe(1);
      await store.close();
    }, 30_000);

    it("the receiver's HTTP claim never takes a consumer's deliveries; a claim naming it does", async () => {
      const store = await backend().open();
      const dst = await store.destinations.create({ name: "http", url: "http://orders.internal/hooks" });
      const idle = new AbortController();
      idle.abort(); // registered, never claiming: the claims below are the test's
      const consumer = await store.inbox.consume({ name: "quiet", handler: () => {}, signal: idle.signal });
      await consumer.stopped;
      await receive(store);
      const http = await store.outbox.claim(10, RECEIVER);
      expect(http.map((d) => d.subscription.id)).toEqual([dst.id]);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      const mine = await store.outbox.claim(10, { ...RECEIVER, target: consumer.id });
      expect(mine.map((d) => d.subscription.id)).toEqual([consumer.id]);
      await expect(
        store.outbox.claim(1, { leaseMs: 1000, workerId: "s", target: dst.id }),
      ).rejects.toMatchObject({
        code: "invalid_target",
      });
      await expect(
        store.destinations.create({ name: "sneaky", url: "consumer:sneaky" }),
      ).rejects.toMatchObject({ code: "invalid_url" });
      await expect(store.inbox.consume({ name: "", handler: () => {} })).rejects.toMatchObject({
        code: "invalid_name",
      });
      await store.close();
    }, 30_000);
  });
}
