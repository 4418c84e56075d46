import { createSecret, GONE_REASON } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import {
  type ClaimedDelivery,
  InvalidEventError,
  isStorableTraceContext,
  type Store,
  StoreInputError,
} from "../../src/index.js";
import { manualClock, NEW_PLANT, PLANT_SOLD, TEST_CATALOG, type TestBackend } from "../support/backends.js";

const LEASE = { leaseMs: 30_000, workerId: "w1" };

async function withSubscriptions(store: Store, n: number, enabled = true) {
  const subs = [];
  for (let i = 0; i < n; i++) {
    subs.push(
      await store.subscriptions.create({ url: `https://s${i}.example/hook`, token: `psk_t${i}`, enabled }),
    );
  }
  return subs;
}

async function drain(store: Store, workerId: string, batch: number): Promise<number[]> {
  const ids: number[] = [];
  for (;;) {
    const claimed = await store.outbox.claim(batch, { leaseMs: 60_000, workerId });
    if (claimed.length === 0) return ids;
    for (const d of claimed) {
      ids.push(d.id);
      await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
    }
  }
}

/** Outbox: publish, claim with leases, attempts, retries, resend/recover, auto-disable, stats. */
export function outboxConformance(backend: () => TestBackend): void {
  describe("outbox", () => {
    it("validates with core, keeps the exact bytes, and fans out to each enabled subscription", async () => {
      const store = await backend().open();
      const [a, b] = await withSubscriptions(store, 2);
      await withSubscriptions(store, 1, false);
      const raw = '{"name":"Fern",  "id":7,"tag":"green"}';
      const published = await store.outbox.publish(raw);
      expect(published).toMatchObject({ duplicate: false, deliveries: 2 });
      expect(published.messageId).toMatch(/^msg_[0-9A-Z]{26}$/);
      expect(Buffer.from((await store.outbox.getMessage(published.messageId))!.body).toString()).toBe(raw);
      const deliveries = await store.outbox.listDeliveries({ messageId: published.messageId });
      expect(deliveries.items.map((d) => d.subscriptionId).sort()).toEqual([a!.id, b!.id].sort());
      expect(deliveries.items.every((d) => d.state === "pending" && d.attempts === 0)).toBe(true);

      const fromObject = await store.outbox.publish({ id: 8, name: "Moss" });
      expect(
        JSON.parse(Buffer.from((await store.outbox.getMessage(fromObject.messageId))!.body).toString()),
      ).toEqual({
        id: 8,
        name: "Moss",
      });
      expect(fromObject.messageId > published.messageId).toBe(true);

      const invalid = await store.outbox.publish({ id: 9 }).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(InvalidEventError);
      expect((invalid as InvalidEventError).kind).toBe("schema");
      expect((invalid as InvalidEventError).issues.map((i) => i.pointer)).toContain("/name");
      await expect(store.outbox.publish("{not json")).rejects.toMatchObject({
        code: "invalid_event",
        kind: "json",
      });
      expect((await store.outbox.stats()).pending).toBe(4);
    });

    it("drops a leading byte order mark and refuses bytes that are not UTF-8", async () => {
      const store = await backend().open();
      const raw = '{"id":1,"name":"Fern"}';
      for (const event of [
        `\uFEFF${raw}`,
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(raw)]),
      ]) {
        const { messageId } = await store.outbox.publish(event);
        expect(Buffer.from((await store.outbox.getMessage(messageId))!.body).toString("hex")).toBe(
          Buffer.from(raw).toString("hex"),
        );
      }
      const latin1 = Buffer.from('{"id":2,"name":"Fo\xe9"}', "latin1");
      const refused = await store.outbox.publish(latin1).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InvalidEventError);
      expect(refused).toMatchObject({ kind: "json", message: expect.stringContaining("UTF-8") });
      const utf8 = Buffer.from('{"id":3,"name":"Foé"}');
      const { messageId } = await store.outbox.publish(utf8);
      expect(Buffer.from((await store.outbox.getMessage(messageId))!.body).equals(utf8)).toBe(true);
    });

    it("returns the same message and its fan-out count for the same idempotency key without a second fan-out", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 3);
      const first = await store.outbox.publish(NEW_PLANT(1), { idempotencyKey: "order-1" });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.outbox.publish(NEW_PLANT(1), { idempotencyKey: "order-1" })),
      );
      for (const r of results)
        expect(r).toMatchObject({ messageId: first.messageId, duplicate: true, deliveries: 3 });
      expect(first.deliveries).toBe(3);
      expect((await store.outbox.stats()).pending).toBe(3);
      await expect(store.outbox.publish(NEW_PLANT(2), { idempotencyKey: "order-1" })).rejects.toMatchObject({
        code: "idempotency_conflict",
      });
    });

    it("publishes any event type of the catalog, validated by its schema, to the subscriptions that receive it", async () => {
      const store = await backend().open();
      const everything = await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
      const plants = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: "psk_b",
        eventTypes: ["newPlant"],
      });
      const sales = await store.subscriptions.create({
        url: "https://c.example/hook",
        token: "psk_c",
        eventTypes: ["plantSold"],
      });
      const both = await store.subscriptions.create({
        url: "https://d.example/hook",
        token: "psk_d",
        eventTypes: ["plantSold", "newPlant"],
      });
      await store.subscriptions.create({
        url: "https://e.example/hook",
        token: "psk_e",
        eventTypes: ["plantSold"],
        enabled: false,
      });
      const targets = async (messageId: string) =>
        (await store.outbox.listDeliveries({ messageId })).items.map((d) => d.subscriptionId).sort();

      const plant = await store.outbox.publish(NEW_PLANT(1));
      expect(plant.deliveries).toBe(3);
      expect(await targets(plant.messageId)).toEqual([everything.id, plants.id, both.id].sort());
      expect((await store.outbox.getMessage(plant.messageId))!.eventType).toBe("newPlant");

      const sale = await store.outbox.publish(PLANT_SOLD(9_223_372_036_854_775_807n), {
        eventType: "plantSold",
        catalog: TEST_CATALOG,
      });
      expect(sale.deliveries).toBe(3);
      expect(await targets(sale.messageId)).toEqual([everything.id, sales.id, both.id].sort());
      const stored = (await store.outbox.getMessage(sale.messageId))!;
      expect(stored.eventType).toBe("plantSold");
      expect(Buffer.from(stored.body).toString()).toBe('{"plantId":9223372036854775807,"price":12.5}');

      // The type's schema validates: a New Plant is not a Plant Sold, and the other way round.
      const wrong = await store.outbox
        .publish(NEW_PLANT(2), { eventType: "plantSold", catalog: TEST_CATALOG })
        .catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(InvalidEventError);
      expect((wrong as InvalidEventError).issues.map((i) => i.pointer)).toContain("/plantId");
      await expect(store.outbox.publish(PLANT_SOLD(3))).rejects.toMatchObject({
        code: "invalid_event",
        kind: "schema",
      });
      // A type the catalog does not hold is refused with the known ones listed.
      for (const [eventType, catalog] of [
        ["plantSold", undefined],
        ["plantEaten", TEST_CATALOG],
      ] as const) {
        const unknown = await store.outbox.publish(PLANT_SOLD(4), { eventType, catalog }).catch((e) => e);
        expect(unknown).toBeInstanceOf(StoreInputError);
        expect(unknown).toMatchObject({ code: "unknown_event_type" });
        expect((unknown as Error).message).toContain(`Unknown event "${eventType}"`);
        expect((unknown as Error).message).toContain("newPlant (New Plant, POST /plant/webhook)");
      }

      const claimed = await store.outbox.claim(10, LEASE);
      expect(
        claimed.filter((d) => d.subscription.id === both.id).map((d) => [d.message.id, d.message.eventType]),
      ).toEqual([
        [plant.messageId, "newPlant"],
        [sale.messageId, "plantSold"],
      ]);
      expect((await store.outbox.stats()).pending + claimed.length).toBe(6);
    });

    it("answers a reused idempotency key with another event type as a conflict, as for another body", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 1);
      const body = JSON.stringify({ plantId: 5, price: 1, id: 5, name: "Fern" });
      const first = await store.outbox.publish(body, { idempotencyKey: "k" });
      expect(await store.outbox.publish(body, { idempotencyKey: "k" })).toMatchObject({
        messageId: first.messageId,
        duplicate: true,
      });
      await expect(
        store.outbox.publish(body, { idempotencyKey: "k", eventType: "plantSold", catalog: TEST_CATALOG }),
      ).rejects.toMatchObject({ code: "idempotency_conflict" });
      expect((await store.outbox.stats()).pending).toBe(1);
    });

    it("claims due deliveries in due-time order with the target and body", async () => {
      const clock = manualClock();
      const store = await backend().open({
        now: clock.now,
        encryptionKey: Buffer.alloc(32, 7).toString("hex"),
      });
      const [sub] = await withSubscriptions(store, 1);
      const [current, old] = [createSecret(), createSecret()];
      await store.subscriptions.update(sub!.id, { secrets: [current, { secret: old, expiresAt: 1 }] });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await store.outbox.publish(NEW_PLANT(i))).messageId);
        clock.advance(1000);
      }
      // Push the first two behind the others.
      const early = await store.outbox.claim(2, LEASE);
      expect(early.map((d) => d.message.id)).toEqual(ids.slice(0, 2));
      await store.outbox.record(early[0]!, { kind: "retry", retryAt: clock.t + 5_000, latencyMs: 0 });
      await store.outbox.record(early[1]!, { kind: "retry", retryAt: clock.t + 2_000, latencyMs: 0 });
      expect(
        await store.outbox.claim(10, { ...LEASE, leaseMs: 1 }).then((c) => c.map((d) => d.message.id)),
      ).toEqual(ids.slice(2));
      clock.advance(10_000); // now everything is due: the 3 leases expired first, then the two retries
      const all = await store.outbox.claim(10, LEASE);
      expect(all.map((d) => d.message.id)).toEqual([...ids.slice(2), ids[1], ids[0]]);
      const d = all[0] as ClaimedDelivery;
      expect(d.subscription).toEqual({
        id: sub!.id,
        url: sub!.url,
        token: "psk_t0",
        secrets: [current],
        signing: "symmetric",
        // Endpoint options are destinations' for now (subscriptions do not read them yet).
        headers: null,
        timeoutMs: null,
        maxInFlight: null,
        ordered: false,
      });
      expect(d.notBefore).toBeNull();
      expect(Buffer.from(d.message.body).toString()).toBe(NEW_PLANT(2));
      expect(d.leaseExpiresAt.getTime()).toBe(clock.t + LEASE.leaseMs);
      expect(d.attempt).toBe(1);
      expect(await store.outbox.claim(10, LEASE)).toEqual([]);
    });

    it("stores a publish's trace context and hands it back with every claim of its deliveries", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      await withSubscriptions(store, 2);
      const carrier = {
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
      };
      const traced = await store.outbox.publish(NEW_PLANT(1), { traceContext: carrier });
      const plain = await store.outbox.publish(NEW_PLANT(2));
      const empty = await store.outbox.publish(NEW_PLANT(3), { traceContext: {} });
      const stored = await backend().sql("SELECT id, trace_context FROM {t}messages ORDER BY id");
      expect(stored.map((row) => [row.id, row.trace_context])).toEqual([
        [traced.messageId, JSON.stringify(carrier)],
        [plain.messageId, null],
        [empty.messageId, null],
      ]);
      expect((await store.outbox.getMessage(traced.messageId))?.traceContext).toEqual(carrier);
      expect((await store.outbox.getMessage(plain.messageId))?.traceContext).toBeNull();
      const first = await store.outbox.claim(10, LEASE);
      expect(first.map((d) => [d.message.id, d.message.traceContext])).toEqual([
        [traced.messageId, carrier],
        [traced.messageId, carrier],
        [plain.messageId, null],
        [plain.messageId, null],
        [empty.messageId, null],
        [empty.messageId, null],
      ]);
      // A retry is claimed with the same context: every attempt continues the publish's trace.
      await store.outbox.record(first[0]!, {
        kind: "retry",
        retryAt: clock.t + 1_000,
        status: 503,
        latencyMs: 1,
      });
      clock.advance(1_000);
      const [retry] = await store.outbox.claim(10, LEASE);
      expect(retry).toMatchObject({ id: first[0]!.id, attempt: 2, message: { traceContext: carrier } });

      for (const traceContext of [
        "traceparent",
        ["traceparent"],
        { traceparent: 1 },
        { "": "x" },
        { traceparent: "a\nb" },
        { tracestate: "x".repeat(5000) },
        Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])),
        new Map([["traceparent", "x"]]),
      ]) {
        await expect(
          store.outbox.publish(NEW_PLANT(4), { traceContext: traceContext as never }),
        ).rejects.toMatchObject({ name: "StoreInputError", code: "invalid_trace_context" });
        // A publisher can ask first, with the same rule.
        expect(isStorableTraceContext(traceContext)).toBe(false);
      }
      for (const traceContext of [carrier, {}, undefined, null])
        expect(isStorableTraceContext(traceContext)).toBe(true);
    });

    it("claims a message whose stored trace context is damaged, without it", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 1);
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const damaged = [
        ["{not json", null],
        ["[1,2]", null],
        ['"text"', null],
        ["null", null],
        ["42", null],
        ['{"traceparent":1}', null],
        [`{"traceparent":"${traceparent}","tracestate":{"a":1}}`, { traceparent }],
      ] as const;
      const ids: string[] = [];
      for (const [i, [text]] of damaged.entries()) {
        const { messageId } = await store.outbox.publish(NEW_PLANT(i + 1), { traceContext: { traceparent } });
        await backend().sql("UPDATE {t}messages SET trace_context = ? WHERE id = ?", [text, messageId]);
        ids.push(messageId);
      }
      const claimed = await store.outbox.claim(10, LEASE);
      expect(claimed.map((d) => [d.message.id, d.message.traceContext])).toEqual(
        damaged.map(([, carrier], i) => [ids[i], carrier]),
      );
      expect((await store.outbox.getMessage(ids[0]!))?.traceContext).toBeNull();
    });

    it("skips the subscriptions a worker cannot serve and caps each subscription within one claim", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [a, b, c] = await withSubscriptions(store, 3);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        ids.push((await store.outbox.publish(NEW_PLANT(i))).messageId);
        clock.advance(1000);
      }
      const view = (claimed: ClaimedDelivery[]) => claimed.map((d) => [d.message.id, d.subscription.id]);
      // One per subscription: the oldest of each, in due order.
      expect(view(await store.outbox.claim(10, { ...LEASE, maxPerSubscription: 1 }))).toEqual([
        [ids[0], a!.id],
        [ids[0], b!.id],
        [ids[0], c!.id],
      ]);
      // a is full: its backlog does not take the claim's room.
      expect(view(await store.outbox.claim(4, { ...LEASE, skipSubscriptions: [a!.id] }))).toEqual([
        [ids[1], b!.id],
        [ids[1], c!.id],
        [ids[2], b!.id],
        [ids[2], c!.id],
      ]);
      expect(
        view(await store.outbox.claim(10, { ...LEASE, skipSubscriptions: [a!.id, b!.id, c!.id] })),
      ).toEqual([]);
      expect(view(await store.outbox.claim(10, { ...LEASE, maxPerSubscription: 2 }))).toEqual([
        [ids[1], a!.id],
        [ids[2], a!.id],
        [ids[3], b!.id],
        [ids[3], c!.id],
      ]);
      expect(view(await store.outbox.claim(10, LEASE))).toEqual([[ids[3], a!.id]]);
      await expect(
        store.outbox.claim(1, { ...LEASE, skipSubscriptions: "x" as unknown as string[] }),
      ).rejects.toMatchObject({ code: "invalid_skip_subscriptions" });
      await expect(store.outbox.claim(1, { ...LEASE, maxPerSubscription: 0 })).rejects.toMatchObject({
        code: "invalid_max_per_subscription",
      });
    });

    it("never hands the same delivery to two concurrent claimers (two connections/pools)", async () => {
      const a = await backend().open();
      const b = await backend().open();
      await withSubscriptions(a, 4);
      for (let i = 0; i < 75; i++) await a.outbox.publish(NEW_PLANT(i));
      const [fromA, fromB, fromA2, fromB2] = await Promise.all([
        drain(a, "a1", 7),
        drain(b, "b1", 5),
        drain(a, "a2", 3),
        drain(b, "b2", 11),
      ]);
      const all = [...fromA, ...fromB, ...fromA2, ...fromB2];
      expect(all).toHaveLength(300);
      expect(new Set(all).size).toBe(300);
      expect(fromA.length + fromA2.length).toBeGreaterThan(0);
      expect(fromB.length + fromB2.length).toBeGreaterThan(0);
      expect(await a.outbox.stats()).toMatchObject({ pending: 0, leased: 0, delivered: 300, failed: 0 });
    });

    it("reclaims a crashed claimer's delivery once its lease expires; the old lease is lost", async () => {
      const clock = manualClock();
      const crashed = await backend().open({ now: clock.now });
      const survivor = await backend().open({ now: clock.now });
      await withSubscriptions(crashed, 1);
      await crashed.outbox.publish(NEW_PLANT(1));
      const [held] = await crashed.outbox.claim(1, { leaseMs: 10_000, workerId: "crashed" });
      await crashed.outbox.recordAttempt(held!, { error: "connect ETIMEDOUT", latencyMs: 15_000 });
      expect(await survivor.outbox.claim(1, { leaseMs: 10_000, workerId: "survivor" })).toEqual([]);
      expect((await survivor.outbox.stats()).oldestDueAt).toBeNull();
      clock.advance(10_001);
      expect((await survivor.outbox.stats()).oldestDueAgeMs).toBe(1);
      const [again] = await survivor.outbox.claim(1, { leaseMs: 10_000, workerId: "survivor" });
      expect(again).toMatchObject({ id: held!.id, attempt: 2 });
      expect(again!.leaseToken).not.toBe(held!.leaseToken);
      await expect(crashed.outbox.record(held!, { kind: "delivered", latencyMs: 0 })).rejects.toMatchObject({
        code: "lease_lost",
      });
      await survivor.outbox.record(again!, { kind: "delivered", status: 204, latencyMs: 3 });
      const attempts = await survivor.outbox.listAttempts(held!.id);
      expect(attempts.map((a) => [a.attempt, a.workerId, a.status, a.error])).toEqual([
        [1, "crashed", null, "connect ETIMEDOUT"],
        [2, "survivor", 204, null],
      ]);
      expect(await survivor.outbox.getDelivery(held!.id)).toMatchObject({ state: "delivered", attempts: 2 });
    });

    it("logs attempts with a response truncated to 4 KiB", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      await withSubscriptions(store, 1);
      await store.outbox.publish(NEW_PLANT(1));
      const [d] = await store.outbox.claim(1, LEASE);
      const body = `${"x".repeat(4095)}€ tail`;
      await store.outbox.record(d!, {
        kind: "retry",
        retryAt: clock.t + 5000,
        status: 503,
        latencyMs: 12.4,
        responseBody: body,
        at: clock.t - 3,
      });
      const [attempt] = await store.outbox.listAttempts(d!.id);
      expect(attempt).toMatchObject({ attempt: 1, status: 503, latencyMs: 12, workerId: "w1" });
      expect(attempt!.attemptedAt.getTime()).toBe(clock.t - 3);
      expect(attempt!.responseBody).toBe("x".repeat(4095));
      expect(await store.outbox.getDelivery(d!.id)).toMatchObject({
        state: "pending",
        lastStatus: 503,
        attempts: 1,
      });
      await expect(store.outbox.record(d!, { kind: "delivered", latencyMs: 0 })).rejects.toMatchObject({
        code: "lease_lost",
      });
    });

    it("finishes the calls of one turn together; a lost lease fails only its own call", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 1);
      for (let i = 1; i <= 3; i++) await store.outbox.publish(NEW_PLANT(i));
      const [a, b, c] = await store.outbox.claim(3, LEASE);
      await store.outbox.record(b!, { kind: "delivered", status: 200, latencyMs: 1 });
      const results = await Promise.allSettled([
        store.outbox.record(a!, { kind: "delivered", status: 200, latencyMs: 2 }),
        store.outbox.record(b!, { kind: "delivered", status: 200, latencyMs: 3 }), // finished already
        store.outbox.record(c!, {
          kind: "retry",
          retryAt: Date.now() + 60_000,
          status: 503,
          latencyMs: 4,
          error: "status 503",
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "lease_lost" });
      expect(await store.outbox.getDelivery(a!.id)).toMatchObject({ state: "delivered", attempts: 1 });
      expect(await store.outbox.getDelivery(b!.id)).toMatchObject({ state: "delivered", attempts: 1 });
      expect(await store.outbox.getDelivery(c!.id)).toMatchObject({
        state: "pending",
        attempts: 1,
        lastStatus: 503,
        lastError: "status 503",
      });
      expect((await store.outbox.listAttempts(b!.id)).map((x) => x.latencyMs)).toEqual([1]);
      expect(await store.outbox.stats()).toMatchObject({ delivered: 2, pending: 1, leased: 0 });
    });

    it("writes a turn's outcomes as one set: each subscription's streak moves by their net effect, in order", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [a, b, c, d] = await withSubscriptions(store, 4);
      for (let i = 1; i <= 2; i++) await store.outbox.publish(NEW_PLANT(i));
      const t0 = clock.t;
      // c is failing already; the others are not.
      const [first] = await store.outbox.claim(1, { ...LEASE, skipSubscriptions: [a!.id, b!.id, d!.id] });
      await store.outbox.record(first!, {
        kind: "retry",
        retryAt: t0 + 3_600_000,
        status: 500,
        latencyMs: 1,
        at: t0,
      });
      expect((await store.subscriptions.get(c!.id))!.failingSince).toEqual(new Date(t0));
      clock.advance(1000);
      const claimed = await store.outbox.claim(10, LEASE);
      const of = (sub: { id: string }) => claimed.filter((x) => x.subscription.id === sub.id);
      const [a1, a2] = of(a!);
      const [b1, b2] = of(b!);
      const [c2] = of(c!);
      const [d1, d2] = of(d!);
      const later = clock.t + 3_600_000;
      const retry = (at: number) =>
        ({ kind: "retry", retryAt: later, status: 500, latencyMs: 1, at }) as const;
      const failed = (at: number) => ({ kind: "failed", status: 500, latencyMs: 1, at }) as const;
      const ok = { kind: "delivered", status: 200, latencyMs: 1 } as const;
      const results = await Promise.allSettled([
        store.outbox.record(a1!, retry(clock.t + 1)), // a: fail then ok → no streak
        store.outbox.record(a2!, ok),
        store.outbox.record(b1!, ok), // b: ok then fail → failing since the fail
        store.outbox.record(b2!, failed(clock.t + 2)),
        store.outbox.record(c2!, retry(clock.t + 3)), // c: failing already → unchanged
        store.outbox.record(d1!, retry(clock.t + 4)), // d: two fails → since the first
        store.outbox.record(d2!, retry(clock.t + 5)),
        store.outbox.record(d2!, ok), // the same lease again in the same turn: finished by then
      ]);
      expect(results.map((r) => r.status)).toEqual([...Array(7).fill("fulfilled"), "rejected"]);
      expect((results[7] as PromiseRejectedResult).reason).toMatchObject({ code: "lease_lost" });
      const since = async (sub: { id: string }) => (await store.subscriptions.get(sub.id))!.failingSince;
      expect(await since(a!)).toBeNull();
      expect(await since(b!)).toEqual(new Date(clock.t + 2));
      expect(await since(c!)).toEqual(new Date(t0));
      expect(await since(d!)).toEqual(new Date(clock.t + 4));
      expect(await store.outbox.getDelivery(d2!.id)).toMatchObject({ state: "pending", attempts: 1 });
      expect(await store.outbox.getDelivery(b2!.id)).toMatchObject({ state: "failed", lastStatus: 500 });
      expect((await store.outbox.listAttempts(c2!.id)).map((x) => [x.attempt, x.attemptedAt])).toEqual([
        [1, new Date(clock.t + 3)],
      ]);
      expect(await store.outbox.stats()).toMatchObject({ pending: 5, leased: 0, delivered: 2, failed: 1 });
    });

    it("records more outcomes in one turn than one multi-row statement holds", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 3);
      for (let i = 1; i <= 50; i++) await store.outbox.publish(NEW_PLANT(i));
      const claimed = await store.outbox.claim(150, LEASE);
      expect(claimed).toHaveLength(150);
      const retryAt = Date.now() + 60_000;
      await Promise.all(
        claimed.map((d, i) =>
          i % 3 === 0
            ? store.outbox.record(d, { kind: "retry", retryAt, status: 503, latencyMs: i, error: `e${i}` })
            : store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: i, responseBody: `r${i}` }),
        ),
      );
      expect(await store.outbox.stats()).toMatchObject({ pending: 50, leased: 0, delivered: 100 });
      for (const i of [0, 1, 64, 127, 128, 149]) {
        const d = claimed[i]!;
        const [attempt] = await store.outbox.listAttempts(d.id);
        expect(attempt).toMatchObject(
          i % 3 === 0
            ? { attempt: 1, status: 503, latencyMs: i, error: `e${i}`, workerId: "w1" }
            : { attempt: 1, status: 200, latencyMs: i, responseBody: `r${i}`, workerId: "w1" },
        );
        expect(await store.outbox.getDelivery(d.id)).toMatchObject(
          i % 3 === 0
            ? { state: "pending", dueAt: new Date(retryAt), lastError: `e${i}` }
            : { state: "delivered", lastStatus: 200 },
        );
      }
    });

    it("fails, resends and recovers deliveries", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [sub, other] = await withSubscriptions(store, 2);
      const before = await store.outbox.publish(NEW_PLANT(1));
      clock.advance(60_000);
      const since = clock.t;
      await store.outbox.publish(NEW_PLANT(2));
      await store.outbox.publish(NEW_PLANT(3));
      for (const d of await store.outbox.claim(10, LEASE)) {
        await store.outbox.record(d, {
          kind: "failed",
          status: 500,
          latencyMs: 1,
          error: "retries exhausted",
        });
      }
      expect(await store.outbox.stats()).toMatchObject({ failed: 6, pending: 0 });
      const failed = (await store.outbox.listDeliveries({ subscriptionId: sub!.id, state: "failed" })).items;
      expect(failed).toHaveLength(3);
      expect(failed[0]).toMatchObject({ lastError: "retries exhausted", lastStatus: 500 });
      expect(failed[0]!.finishedAt).not.toBeNull();

      const oldOne = failed.find((d) => d.messageId === before.messageId)!;
      const resent = await store.outbox.resend(oldOne.id);
      expect(resent).toMatchObject({ state: "pending", attempts: 0, finishedAt: null });
      const [claimedAgain] = await store.outbox.claim(1, LEASE);
      expect(claimedAgain).toMatchObject({ id: oldOne.id, attempt: 1 });
      await expect(store.outbox.resend(oldOne.id)).rejects.toMatchObject({ code: "delivery_in_flight" });
      await store.outbox.record(claimedAgain!, { kind: "delivered", latencyMs: 0 });

      expect(await store.outbox.recover(sub!.id, since)).toBe(2);
      const recovered = await store.outbox.claim(10, LEASE);
      expect(recovered.map((d) => d.subscription.id)).toEqual([sub!.id, sub!.id]);
      expect(
        (await store.outbox.listDeliveries({ subscriptionId: other!.id, state: "failed" })).items,
      ).toHaveLength(3);
      await expect(store.outbox.resend(999_999)).rejects.toMatchObject({ code: "not_found" });
      await expect(store.outbox.recover("sub_missing", 0)).rejects.toMatchObject({ code: "not_found" });
    });

    it("refuses list filters that are not one string (a repeated query parameter parsed naively is an array)", async () => {
      const store = await backend().open();
      const [sub] = await withSubscriptions(store, 1);
      await store.outbox.publish(NEW_PLANT(1));
      for (const [filters, message] of [
        [{ subscriptionId: [sub!.id, sub!.id] }, /subscriptionId must be a string/],
        [{ messageId: ["a", "b"] }, /messageId must be a string/],
        [{ subscriptionId: 7 }, /subscriptionId must be a string/],
        [{ state: "done" }, /state must be one of pending, leased, delivered, failed/],
        [{ state: ["failed"] }, /state must be one of/],
      ] as const) {
        await expect(store.outbox.listDeliveries(filters as never)).rejects.toMatchObject({
          name: "StoreInputError",
          code: "invalid_argument",
          message: expect.stringMatching(message),
        });
      }
      expect(
        (await store.outbox.listDeliveries({ subscriptionId: sub!.id, state: "pending" })).items,
      ).toHaveLength(1);
    });

    it("never hands out a disabled subscription's delivery: a released or expired lease is failed instead", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [gone, healthy] = await withSubscriptions(store, 2);
      await store.outbox.publish(NEW_PLANT(1));
      await store.outbox.publish(NEW_PLANT(2));
      const claimed = await store.outbox.claim(10, LEASE);
      expect(claimed).toHaveLength(4);
      await store.subscriptions.disable(gone!.id, "410 Gone");
      const ofGone = claimed.filter((d) => d.subscription.id === gone!.id);
      // One is handed back (a worker shutting down), the other's lease simply expires.
      await store.outbox.release(ofGone[0]!);
      for (const d of claimed.filter((d) => d.subscription.id === healthy!.id)) await store.outbox.release(d);
      clock.advance(LEASE.leaseMs + 1);
      const again = await store.outbox.claim(10, { ...LEASE, workerId: "w2" });
      expect(again.map((d) => d.subscription.id)).toEqual([healthy!.id, healthy!.id]);
      const failed = await store.outbox.listDeliveries({ subscriptionId: gone!.id, state: "failed" });
      expect(failed.items.map((d) => d.id).sort()).toEqual(ofGone.map((d) => d.id).sort());
      expect(failed.items.every((d) => /subscription disabled/.test(d.lastError ?? ""))).toBe(true);
      expect(await store.outbox.stats()).toMatchObject({ pending: 0, leased: 2, failed: 2 });
      // The worker that still held the expired lease finds it gone.
      await expect(
        store.outbox.record(ofGone[1]!, { kind: "delivered", status: 200, latencyMs: 1 }),
      ).rejects.toMatchObject({ code: "lease_lost" });
    });

    it("keeps the failure streak and disables subscriptions failing longer than a threshold", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [flaky, dead, healthy] = await withSubscriptions(store, 3);
      const run = async (outcome: (subId: string) => "ok" | "retry" | "fail") => {
        await store.outbox.publish(NEW_PLANT(1));
        for (const d of await store.outbox.claim(100, LEASE)) {
          const o = outcome(d.subscription.id);
          if (o === "ok") await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
          else if (o === "retry")
            await store.outbox.record(d, {
              kind: "retry",
              retryAt: clock.t + 3600_000,
              status: 500,
              latencyMs: 1,
            });
          else await store.outbox.record(d, { kind: "failed", status: 500, latencyMs: 1 });
        }
      };
      const t0 = clock.t;
      await run((id) => (id === healthy!.id ? "ok" : "retry"));
      expect((await store.subscriptions.get(flaky!.id))!.failingSince).toEqual(new Date(t0));
      clock.advance(1000);
      await run((id) => (id === healthy!.id ? "ok" : "fail"));
      // The streak starts at the first failure and is not moved by later ones.
      expect((await store.subscriptions.get(dead!.id))!.failingSince).toEqual(new Date(t0));
      expect((await store.subscriptions.get(healthy!.id))!.failingSince).toBeNull();
      clock.advance(1000);
      await run((id) => (id === flaky!.id ? "ok" : id === dead!.id ? "retry" : "ok"));
      expect((await store.subscriptions.get(flaky!.id))!.failingSince).toBeNull();

      clock.advance(5 * 86_400_000);
      await store.outbox.publish(NEW_PLANT(2)); // one pending delivery each
      expect(await store.subscriptions.disableFailing(5 * 86_400_000)).toEqual([dead!.id]);
      const disabled = (await store.subscriptions.get(dead!.id))!;
      expect(disabled).toMatchObject({ enabled: false, disabledAt: new Date(clock.t) });
      expect(disabled.disabledReason).toMatch(/failing/);
      // Its pending deliveries were failed; the others are untouched.
      const pendingDead = await store.outbox.listDeliveries({ subscriptionId: dead!.id, state: "pending" });
      expect(pendingDead.items).toEqual([]);
      const failedDead = await store.outbox.listDeliveries({ subscriptionId: dead!.id, state: "failed" });
      expect(failedDead.items[0]!.lastError).toMatch(/subscription disabled/);
      expect((await store.outbox.publish(NEW_PLANT(3))).deliveries).toBe(2);
      await expect(store.outbox.recover(dead!.id, 0)).rejects.toMatchObject({
        code: "subscription_disabled",
      });
      await expect(store.outbox.resend(failedDead.items[0]!.id)).rejects.toMatchObject({
        code: "subscription_disabled",
      });
      const enabled = await store.subscriptions.enable(dead!.id);
      expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
      expect(await store.outbox.recover(dead!.id, 0)).toBeGreaterThan(0);
    });

    it("records a 410 Gone with its disable in one transaction: the delivery fails, the subscription is disabled", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [gone, healthy] = await withSubscriptions(store, 2);
      for (let i = 1; i <= 3; i++) await store.outbox.publish(NEW_PLANT(i));
      const [d1, d2] = await store.outbox.claim(2, { ...LEASE, skipSubscriptions: [healthy!.id] });
      clock.advance(1000);
      // One turn: the 410, then a retry of the same subscription that must see it disabled.
      await Promise.all([
        store.outbox.record(d1!, { kind: "gone", status: 410, latencyMs: 2 }),
        store.outbox.record(d2!, { kind: "retry", retryAt: clock.t + 60_000, status: 503, latencyMs: 3 }),
      ]);
      expect(await store.subscriptions.get(gone!.id)).toMatchObject({
        enabled: false,
        disabledReason: GONE_REASON,
        disabledAt: new Date(clock.t),
        failingSince: new Date(clock.t),
      });
      expect(await store.outbox.getDelivery(d1!.id)).toMatchObject({
        state: "failed",
        lastStatus: 410,
        lastError: GONE_REASON,
        attempts: 1,
      });
      expect(await store.outbox.getDelivery(d2!.id)).toMatchObject({
        state: "failed",
        lastError: "subscription disabled",
      });
      expect((await store.outbox.listAttempts(d1!.id)).map((a) => [a.attempt, a.status])).toEqual([[1, 410]]);
      const pendingOfGone = await store.outbox.listDeliveries({ subscriptionId: gone!.id, state: "failed" });
      expect(pendingOfGone.items.map((d) => d.lastError).sort()).toEqual(
        [GONE_REASON, "subscription disabled", `subscription disabled: ${GONE_REASON}`].sort(),
      );
      expect(await store.subscriptions.get(healthy!.id)).toMatchObject({
        enabled: true,
        disabledReason: null,
      });
      expect(await store.outbox.stats()).toMatchObject({ pending: 3, leased: 0, failed: 3 });
    });

    it("writes nothing of a 410 whose lease is lost, and keeps an earlier disable's reason", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const [sub] = await withSubscriptions(store, 1);
      await store.outbox.publish(NEW_PLANT(1));
      const [lost] = await store.outbox.claim(1, { ...LEASE, leaseMs: 1000 });
      clock.advance(1001);
      const [reclaimed] = await store.outbox.claim(1, { ...LEASE, workerId: "w2" });
      expect(reclaimed!.id).toBe(lost!.id);
      // The disable is part of the outcome: when the outcome cannot be written, neither is the disable.
      await expect(
        store.outbox.record(lost!, { kind: "gone", status: 410, latencyMs: 1 }),
      ).rejects.toMatchObject({
        code: "lease_lost",
      });
      expect(await store.subscriptions.get(sub!.id)).toMatchObject({ enabled: true, disabledReason: null });
      expect(await store.outbox.getDelivery(lost!.id)).toMatchObject({ state: "leased", attempts: 0 });
      await store.subscriptions.disable(sub!.id, "by an operator");
      await store.outbox.record(reclaimed!, { kind: "gone", status: 410, latencyMs: 1 });
      expect(await store.subscriptions.get(sub!.id)).toMatchObject({
        enabled: false,
        disabledReason: "by an operator",
      });
      expect(await store.outbox.getDelivery(reclaimed!.id)).toMatchObject({
        state: "failed",
        lastError: GONE_REASON,
      });
    });

    it("fails instead of rescheduling a delivery whose subscription was disabled meanwhile", async () => {
      const store = await backend().open();
      const [sub] = await withSubscriptions(store, 1);
      await store.outbox.publish(NEW_PLANT(1));
      const [d] = await store.outbox.claim(1, LEASE);
      await store.subscriptions.disable(sub!.id, "gone (410)");
      await store.outbox.record(d!, { kind: "retry", retryAt: Date.now() + 1000, status: 500, latencyMs: 1 });
      expect(await store.outbox.getDelivery(d!.id)).toMatchObject({
        state: "failed",
        lastError: "subscription disabled",
      });
      expect((await store.subscriptions.get(sub!.id))!.disabledReason).toBe("gone (410)");
    });

    it("releases a claimed delivery without counting an attempt", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 1);
      await store.outbox.publish(NEW_PLANT(1));
      const [d] = await store.outbox.claim(1, LEASE);
      await store.outbox.release(d!);
      const [again] = await store.outbox.claim(1, LEASE);
      expect(again).toMatchObject({ id: d!.id, attempt: 1 });
    });

    it("keeps depth by state equal to a count of the rows through every kind of transition", async () => {
      const clock = manualClock();
      const b = backend();
      const store = await b.open({ now: clock.now });
      const [a, c] = await withSubscriptions(store, 2);
      const counted = async () => {
        const rows = await b.sql("SELECT state, count(*) AS n FROM {t}deliveries GROUP BY state");
        const n = new Map(rows.map((r) => [r.state as string, Number(r.n)]));
        return {
          pending: n.get("pending") ?? 0,
          leased: n.get("leased") ?? 0,
          delivered: n.get("delivered") ?? 0,
          failed: n.get("failed") ?? 0,
        };
      };
      const check = async (step: string) => {
        const { pending, leased, delivered, failed } = await store.outbox.stats();
        expect({ step, pending, leased, delivered, failed }).toEqual({ step, ...(await counted()) });
      };
      for (let i = 0; i < 6; i++) await store.outbox.publish(NEW_PLANT(i));
      await check("published");
      const [d1, d2, d3, d4, d5, d6] = await store.outbox.claim(6, LEASE);
      await check("claimed");
      await store.outbox.record(d1!, { kind: "delivered", latencyMs: 0 });
      await store.outbox.record(d2!, { kind: "failed", latencyMs: 0 });
      await store.outbox.record(d3!, { kind: "retry", retryAt: clock.t, latencyMs: 0 });
      await store.outbox.release(d4!);
      await check("outcomes");
      clock.advance(LEASE.leaseMs + 1); // d5, d6 expire and are claimed again: leased → leased
      const again = await store.outbox.claim(10, LEASE);
      expect(again.map((d) => d.id)).toEqual(expect.arrayContaining([d5!.id, d6!.id]));
      await check("claimed again");
      await store.outbox.resend(d1!.id);
      await store.outbox.recover(d2!.subscription.id, 0);
      await check("resent and recovered");
      await store.subscriptions.disable(c!.id, "test");
      await check("disabled");
      clock.advance(LEASE.leaseMs + 1); // c's leased deliveries expire: the claim fails them, leased → failed
      for (const d of await store.outbox.claim(20, LEASE)) {
        expect(d.subscription.id).toBe(a!.id);
        await store.outbox.record(d, { kind: "failed", latencyMs: 0 });
      }
      await check("disabled's leases failed by the claim");
      const ofC = await store.outbox.listDeliveries({ subscriptionId: c!.id, limit: 50 });
      expect(ofC.items.some((d) => d.state === "failed" && d.lastError === "subscription disabled")).toBe(
        true,
      );
      await store.subscriptions.delete(a!.id); // failed → deleted
      await check("subscription deleted");
      await store.subscriptions.enable(c!.id);
      await store.outbox.recover(c!.id, 0);
      for (const d of await store.outbox.claim(20, LEASE))
        await store.outbox.record(d, { kind: "delivered", latencyMs: 0 });
      clock.advance(86_400_000);
      expect((await store.purge({ before: clock.t })).messages).toBeGreaterThan(0);
      await check("purged");
    });

    it("reports depth by state and the oldest due age", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      await withSubscriptions(store, 2);
      expect(await store.outbox.stats()).toEqual({
        pending: 0,
        leased: 0,
        delivered: 0,
        failed: 0,
        oldestDueAt: null,
        oldestDueAgeMs: 0,
      });
      const t0 = clock.t;
      for (let i = 0; i < 3; i++) await store.outbox.publish(NEW_PLANT(i));
      clock.advance(2500);
      const [one, two, three] = await store.outbox.claim(3, LEASE);
      await store.outbox.record(one!, { kind: "delivered", latencyMs: 0 });
      await store.outbox.record(two!, { kind: "failed", latencyMs: 0 });
      expect(three).toBeDefined();
      const stats = await store.outbox.stats();
      expect(stats).toEqual({
        pending: 3,
        leased: 1,
        delivered: 1,
        failed: 1,
        oldestDueAt: new Date(t0),
        oldestDueAgeMs: 2500,
      });
      const [counted] = await backend().sql(
        "SELECT count(*) AS n FROM {t}deliveries WHERE state = 'pending'",
      );
      expect(Number(counted.n)).toBe(stats.pending);
    });

    it("wakes an idle worker at once on publish, times out otherwise, stops on abort", async () => {
      const store = await backend().open();
      await withSubscriptions(store, 1);
      expect(await store.outbox.claim(1, LEASE)).toEqual([]);
      expect(await store.outbox.waitForWork(undefined, 50)).toBe(false);
      const started = Date.now();
      const woken = store.outbox.waitForWork(undefined, 20_000);
      setTimeout(() => void store.outbox.publish(NEW_PLANT(1)), 50);
      expect(await woken).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await store.outbox.claim(1, LEASE)).toHaveLength(1);
      const controller = new AbortController();
      const aborted = store.outbox.waitForWork(controller.signal, 20_000);
      controller.abort();
      expect(await aborted).toBe(false);
    });

    it("answers ping while open and store_closed after close", async () => {
      const store = await backend().open();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await store.close();
      await expect(store.outbox.stats()).rejects.toMatchObject({
        code: "store_closed",
        name: "StoreUnavailableError",
      });
    });
  });
}
