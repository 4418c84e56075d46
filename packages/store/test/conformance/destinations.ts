import { randomBytes } from "node:crypto";
import { REFUSED_TARGET_HEADERS } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { type Store, StoreConflictError, StoreInputError } from "../../src/index.js";
import { manualClock, type TestBackend } from "../support/backends.js";

const RECEIVER = { leaseMs: 30_000, workerId: "rx", scope: "receiver" } as const;
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;

let webhookSeq = 0;
/** Records a New Plant event with exact bytes and a fresh webhook id; returns both. */
async function receive(store: Store, eventType?: string) {
  const webhookId = `msg_dest${++webhookSeq}_${randomBytes(4).toString("hex")}`;
  const body = Buffer.from(`{"id":${webhookSeq},  "name":"Fern \u00e9"}`);
  const result = await store.inbox.record({ webhookId, body, eventType });
  return { webhookId, body, result };
}

/** Destinations: targets of the outbox, forwarded to in the inbox's transaction, claimed with their options. */
export function destinationConformance(backend: () => TestBackend): void {
  describe("destinations", () => {
    it("creates (secret generated), lists, updates, pauses and deletes; subscriptions never see them", async () => {
      const store = await backend().open();
      const sub = await store.subscriptions.create({ url: "https://s.example/hook", token: "psk_t" });
      const dst = await store.destinations.create({
        name: "orders",
        url: "http://orders.internal:8080/hooks",
      });
      expect(dst).toMatchObject({
        name: "orders",
        url: "http://orders.internal:8080/hooks",
        eventTypes: null,
        paused: false,
        ordered: false,
        maxInFlight: null,
        rateLimit: null,
        headers: {},
        timeoutMs: null,
        signing: "symmetric",
        enabled: true,
      });
      expect(dst.id).toMatch(/^dst_/);
      expect(dst.secrets).toHaveLength(1);
      expect(dst.secrets[0]?.secret).toMatch(/^whsec_/);
      expect((await store.subscriptions.list()).map((s) => s.id)).toEqual([sub.id]);
      expect(await store.subscriptions.get(dst.id)).toBeNull();
      expect(await store.destinations.get(sub.id)).toBeNull();
      const updated = await store.destinations.update(dst.id, {
        ordered: true,
        rateLimit: 5,
        headers: { "X-Team": "plants" },
        timeoutMs: 2000,
        eventTypes: ["newPlant"],
        signing: "both",
      });
      expect(updated).toMatchObject({
        ordered: true,
        rateLimit: 5,
        headers: { "x-team": "plants" },
        timeoutMs: 2000,
        signing: "both",
      });
      await expect(store.destinations.update(dst.id, { signing: "v1a" as never })).rejects.toMatchObject({
        code: "invalid_signing",
      });
      expect((await store.destinations.get(dst.id))?.signing).toBe("both");
      expect((await store.destinations.pause(dst.id)).paused).toBe(true);
      expect((await store.destinations.resume(dst.id)).paused).toBe(false);
      expect((await store.destinations.getByName("orders"))?.id).toBe(dst.id);
      await expect(
        store.destinations.create({ name: "orders", url: "http://x.internal/" }),
      ).rejects.toMatchObject({
        code: "name_taken",
      });
      const rotated = await store.destinations.rotateSecret(dst.id, SECRET);
      expect(rotated.secrets.map((s) => s.secret)).toContain(SECRET);
      expect(await store.destinations.delete(dst.id)).toBe(true);
      expect(await store.destinations.delete(dst.id)).toBe(false);
      expect(await store.destinations.list()).toEqual([]);
      await expect(store.destinations.update(dst.id, {})).rejects.toBeInstanceOf(StoreConflictError);
      await store.close();
    });

    it("refuses bad urls, refused headers and bad options with a reason", async () => {
      const store = await backend().open();
      const bad = async (input: Record<string, unknown>, code: string, words: RegExp) =>
        expect(
          store.destinations.create({ name: "x", url: "https://ok.example/", ...input } as never),
        ).rejects.toSatisfy((error: unknown) => {
          expect(error).toBeInstanceOf(StoreInputError);
          expect(error).toMatchObject({ code });
          expect((error as Error).message).toMatch(words);
          return true;
        });
      await bad({ url: "ftp://files.example/" }, "invalid_url", /http:\/\/ or https:\/\//);
      await bad({ url: "https://user:pw@svc.example/" }, "invalid_url", /credentials/);
      await bad({ url: "http://169.254.169.254/latest/meta-data" }, "invalid_url", /metadata or link-local/);
      await bad({ url: "http://metadata.google.internal/" }, "invalid_url", /metadata/);
      await bad({ url: "http://[fe80::1]/" }, "invalid_url", /link-local/);
      for (const name of REFUSED_TARGET_HEADERS) {
        await bad({ headers: { [name.toUpperCase()]: "x" } }, "invalid_headers", new RegExp(name));
      }
      await bad({ headers: { "x-ok": "line\r\nbreak" } }, "invalid_headers", /header-safe/);
      await bad({ rateLimit: 0 }, "invalid_rateLimit", /rateLimit/);
      await bad({ maxInFlight: 1.5 }, "invalid_maxInFlight", /whole number/);
      await bad({ eventTypes: [] }, "invalid_event_types", /empty/);
      await bad({ name: "" }, "invalid_name", /name/);
      expect(await store.destinations.list()).toEqual([]);
      await store.close();
    });

    it("commits one forward per destination taking the type with the event; a duplicate adds none", async () => {
      const store = await backend().open();
      const all = await store.destinations.create({ name: "all", url: "http://all.internal/" });
      const plants = await store.destinations.create({
        name: "plants",
        url: "http://plants.internal/",
        eventTypes: ["newPlant"],
      });
      await store.destinations.create({
        name: "sold",
        url: "http://sold.internal/",
        eventTypes: ["plantSold"],
      });
      const sub = await store.subscriptions.create({ url: "https://s.example/hook", token: "psk_t" });
      const first = await receive(store);
      expect(first.result.duplicate).toBe(false);
      const again = await store.inbox.record({ webhookId: first.webhookId, body: first.body });
      expect(again.duplicate).toBe(true);
      // The sender's claim never takes a forward; the receiver's never takes a subscription's delivery.
      await store.outbox.publish({ id: 7, name: "Ivy" });
      const senderClaim = await store.outbox.claim(10, { leaseMs: 30_000, workerId: "tx" });
      expect(senderClaim.map((d) => d.subscription.id)).toEqual([sub.id]);
      const claimed = await store.outbox.claim(10, RECEIVER);
      expect(claimed.map((d) => d.subscription.id).sort()).toEqual([all.id, plants.id].sort());
      for (const d of claimed) {
        expect(d.message.id).toBe(first.webhookId);
        expect(Buffer.from(d.message.body).equals(first.body)).toBe(true);
        expect(d.message.eventType).toBe("newPlant");
        expect(d.subscription.token).toBeNull();
        expect(d.subscription.secrets).toHaveLength(1);
      }
      // processed once every forward is delivered, not before
      const seq = first.result.duplicate ? 0 : first.result.event.seq;
      await store.outbox.record(claimed[0] as never, { kind: "delivered", status: 200, latencyMs: 3 });
      expect((await store.inbox.get(first.webhookId))?.processedAt).toBeNull();
      await store.outbox.record(claimed[1] as never, { kind: "delivered", status: 200, latencyMs: 3 });
      expect((await store.inbox.get(first.webhookId))?.processedAt).toBeInstanceOf(Date);
      const listed = await store.outbox.listDeliveries({ messageId: `in_${seq}` });
      expect(listed.items.map((d) => d.state)).toEqual(["delivered", "delivered"]);
      await store.close();
    });

    it("one group commit forwards each new event once, in commit order; duplicates in or before it get none", async () => {
      const store = await backend().open();
      const dst = await store.destinations.create({ name: "batch", url: "http://batch.internal/" });
      const first = await receive(store);
      const id = (n: number) => `msg_batch${n}_${randomBytes(4).toString("hex")}`;
      const [a, b, c] = [id(1), id(2), id(3)];
      const results = await Promise.all(
        [a, first.webhookId, b, a, c].map((webhookId) =>
          store.inbox.record({ webhookId, body: Buffer.from(`{"id":1,"name":"${webhookId}"}`) }),
        ),
      );
      expect(results.map((r) => r.duplicate)).toEqual([false, true, false, true, false]);
      const seqs = results.flatMap((r) => (r.duplicate ? [] : [r.event.seq]));
      // SQLite creates a forward's rows when the destination first takes it (decision 45), PostgreSQL at ingest.
      expect(await store.outbox.claim(10, RECEIVER)).toHaveLength(4);
      const listed = await store.outbox.listDeliveries({ subscriptionId: dst.id, limit: 10 });
      const bySeq = [...listed.items].sort((x, y) => Number(x.id) - Number(y.id)).map((d) => d.messageId);
      const firstSeq = first.result.duplicate ? 0 : first.result.event.seq;
      expect(bySeq).toEqual([firstSeq, ...seqs].map((seq) => `in_${seq}`));
      await store.close();
    });

    it("an ordered destination hands out only its head; later events wait while it retries", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const dst = await store.destinations.create({
        name: "fifo",
        url: "http://fifo.internal/",
        ordered: true,
      });
      const events = [await receive(store), await receive(store), await receive(store)];
      let claimed = await store.outbox.claim(10, RECEIVER);
      expect(claimed.map((d) => d.message.id)).toEqual([events[0]?.webhookId]);
      expect(claimed[0]?.subscription.maxInFlight).toBe(1);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      await store.outbox.record(claimed[0] as never, {
        kind: "retry",
        status: 503,
        latencyMs: 1,
        retryAt: clock.now() + 5000,
      });
      clock.advance(1000);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]); // the head is not due, the others wait behind it
      expect((await store.destinations.stats())[0]).toMatchObject({
        depth: 3,
        blockedBehind: events[0]?.webhookId,
      });
      clock.advance(5000);
      claimed = await store.outbox.claim(10, RECEIVER);
      expect(claimed.map((d) => d.message.id)).toEqual([events[0]?.webhookId]);
      const seen: string[] = [];
      while (claimed.length > 0) {
        for (const d of claimed) {
          seen.push(d.message.id);
          await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
        }
        claimed = await store.outbox.claim(10, RECEIVER);
        expect(claimed.length).toBeLessThanOrEqual(1);
      }
      expect(seen).toEqual(events.map((e) => e.webhookId));
      expect((await store.destinations.stats())[0]).toMatchObject({
        destinationId: dst.id,
        depth: 0,
        failed: 0,
      });
      await store.close();
    });

    it("pause queues forwards and resume releases them; a concurrent destination caps what is in flight", async () => {
      const store = await backend().open();
      const dst = await store.destinations.create({ name: "p", url: "http://p.internal/", maxInFlight: 2 });
      await store.destinations.pause(dst.id);
      for (let i = 0; i < 5; i++) await receive(store);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      expect((await store.destinations.stats())[0]).toMatchObject({ depth: 5 });
      await store.destinations.resume(dst.id);
      const first = await store.outbox.claim(10, RECEIVER);
      expect(first).toHaveLength(2);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      await store.outbox.record(first[0] as never, { kind: "delivered", status: 200, latencyMs: 1 });
      expect(await store.outbox.claim(10, RECEIVER)).toHaveLength(1);
      await store.close();
    });

    it("an event is processed once every destination taking its type has it; a paused one's depth and lag count its queue", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const active = await store.destinations.create({ name: "a", url: "http://a.internal/" });
      const held = await store.destinations.create({ name: "h", url: "http://h.internal/", paused: true });
      const other = await store.destinations.create({
        name: "o",
        url: "http://o.internal/",
        eventTypes: ["otherType"],
        paused: true,
      });
      const received = [];
      for (let i = 0; i < 3; i++) {
        received.push(await receive(store));
        clock.advance(100);
      }
      const firstAt = clock.now() - 300;
      const stats = async (id: string) =>
        (await store.destinations.stats()).find((s) => s.destinationId === id);
      expect(await stats(held.id)).toMatchObject({ depth: 3, oldestPendingAt: new Date(firstAt), failed: 0 });
      expect(await stats(other.id)).toMatchObject({ depth: 0, oldestPendingAt: null });
      const toActive = await store.outbox.claim(10, RECEIVER);
      expect(toActive.map((d) => [d.subscription.id, d.message.id])).toEqual(
        received.map((r) => [active.id, r.webhookId]),
      );
      for (const d of toActive)
        await store.outbox.record(d as never, { kind: "delivered", status: 200, latencyMs: 1 });
      // The paused destination has not taken them: not processed (the one taking another type does not count).
      for (const r of received) expect((await store.inbox.get(r.webhookId))?.processedAt).toBeNull();
      expect(await stats(held.id)).toMatchObject({ depth: 3, oldestPendingAt: new Date(firstAt) });
      await store.destinations.resume(held.id);
      const toHeld = await store.outbox.claim(10, RECEIVER);
      expect(toHeld.map((d) => [d.subscription.id, d.message.id])).toEqual(
        received.map((r) => [held.id, r.webhookId]),
      );
      for (const d of toHeld)
        await store.outbox.record(d as never, { kind: "delivered", status: 200, latencyMs: 1 });
      for (const r of received)
        expect((await store.inbox.get(r.webhookId))?.processedAt).toBeInstanceOf(Date);
      expect(await stats(held.id)).toMatchObject({ depth: 0, oldestPendingAt: null });
      await store.close();
    });

    it("a destination taking a rare type gets it at its first claim behind a busy inbox; retention keeps only its types", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const rare = await store.destinations.create({
        name: "rare",
        url: "http://rare.internal/",
        eventTypes: ["rare"],
      });
      const held = await store.destinations.create({
        name: "held",
        url: "http://held.internal/",
        eventTypes: ["rare"],
        paused: true,
      });
      const busy = [];
      for (let i = 0; i < 50; i++) busy.push(await receive(store));
      const wanted = await receive(store, "rare");
      const claimed = await store.outbox.claim(2, RECEIVER);
      expect(claimed.map((d) => [d.subscription.id, d.message.id])).toEqual([[rare.id, wanted.webhookId]]);
      await store.outbox.record(claimed[0] as never, { kind: "delivered", status: 200, latencyMs: 1 });
      expect(await store.outbox.claim(2, RECEIVER)).toEqual([]);
      // The paused one holds its own type's event, not the others'.
      clock.advance(10);
      await store.purge({ before: clock.now() + 1 });
      expect(await store.inbox.get(wanted.webhookId)).not.toBeNull();
      for (const r of busy) expect(await store.inbox.get(r.webhookId)).toBeNull();
      expect((await store.destinations.stats()).find((s) => s.destinationId === held.id)).toMatchObject({
        depth: 1,
      });
      await store.close();
    });

    it("a forward only to a paused destination wakes no worker; one to an active destination and resume do", async () => {
      const store = await backend().open();
      const dst = await store.destinations.create({ name: "w", url: "http://w.internal/" });
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      // Woken by a forward. On PostgreSQL the first ones may be sent before the LISTEN connection is up: send until
      // one wakes the wait.
      await expect
        .poll(
          async () => {
            const woken = store.outbox.waitForWork(undefined, 2_000);
            await receive(store);
            return woken;
          },
          { timeout: 60_000 },
        )
        .toBe(true);
      // Every forward claimed, and every notification of theirs delivered (none for 300 ms).
      do await store.outbox.claim(100, RECEIVER);
      while (await store.outbox.waitForWork(undefined, 300));
      await store.destinations.pause(dst.id);
      await receive(store);
      expect(await store.outbox.waitForWork(undefined, 300)).toBe(false);
      const resumed = store.outbox.waitForWork(undefined, 20_000);
      await store.destinations.resume(dst.id);
      expect(await resumed).toBe(true);
      expect(await store.outbox.claim(10, RECEIVER)).toHaveLength(1);
      await store.close();
    });

    it("a rate limit hands out send times one interval apart, within a horizon, held in the target row", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      await store.destinations.create({ name: "r", url: "http://r.internal/", rateLimit: 5 });
      for (let i = 0; i < 20; i++) await receive(store);
      const start = clock.now();
      const first = await store.outbox.claim(50, RECEIVER);
      // 5/s over a one-second horizon: sends at +0, +200, … +1000 ms
      expect(first.map((d) => (d.notBefore ? d.notBefore.getTime() : start) - start)).toEqual([
        0, 200, 400, 600, 800, 1000,
      ]);
      expect(await store.outbox.claim(50, RECEIVER)).toEqual([]); // a second claimer gets nothing sooner
      clock.advance(1000);
      const next = await store.outbox.claim(50, RECEIVER);
      expect(next[0]?.notBefore?.getTime()).toBe(start + 1200);
      await store.close();
    });

    it("a 410 disables the destination; later forwards fail at the claim; enable + recover delivers them", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const dst = await store.destinations.create({ name: "g", url: "http://g.internal/" });
      await receive(store);
      const [gone] = await store.outbox.claim(10, RECEIVER);
      await store.outbox.record(gone as never, { kind: "gone", status: 410, latencyMs: 1 });
      expect(await store.destinations.get(dst.id)).toMatchObject({ enabled: false });
      expect((await store.destinations.get(dst.id))?.disabledReason).toMatch(/410/);
      await receive(store);
      expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
      expect((await store.destinations.stats())[0]).toMatchObject({ depth: 0, failed: 2 });
      await store.destinations.enable(dst.id);
      expect(await store.outbox.recover(dst.id, 0)).toBe(2);
      expect(await store.outbox.claim(10, RECEIVER)).toHaveLength(2);
      await store.close();
    });

    it("retention keeps an event whose forward is unfinished, and its forward keeps its bytes", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const dst = await store.destinations.create({
        name: "later",
        url: "http://later.internal/",
        paused: true,
      });
      const kept = await receive(store);
      await store.destinations.delete(
        (await store.destinations.create({ name: "x", url: "http://x.internal/" })).id,
      );
      clock.advance(10);
      await store.purge({ before: clock.now() + 1 });
      expect(await store.inbox.get(kept.webhookId)).not.toBeNull();
      await store.destinations.resume(dst.id);
      const [claimed] = await store.outbox.claim(1, RECEIVER);
      expect(claimed?.message.id).toBe(kept.webhookId);
      expect(Buffer.from(claimed?.message.body ?? []).equals(kept.body)).toBe(true);
      await store.outbox.record(claimed as never, { kind: "delivered", status: 200, latencyMs: 1 });
      await store.purge({ before: clock.now() + 1 });
      expect(await store.inbox.get(kept.webhookId)).toBeNull();
      await store.close();
    });

    it("ensure() creates by name once, then updates the url and adopts a given secret", async () => {
      const store = await backend().open();
      const a = await store.destinations.ensure({ name: "svc", url: "http://svc.internal/a" });
      const b = await store.destinations.ensure({ name: "svc", url: "http://svc.internal/a" });
      expect(b.id).toBe(a.id);
      expect(b.secrets).toEqual(a.secrets);
      const c = await store.destinations.ensure({
        name: "svc",
        url: "http://svc.internal/b",
        secret: SECRET,
      });
      expect(c.id).toBe(a.id);
      expect(c.url).toBe("http://svc.internal/b");
      const [claimedAfter] = await (async () => {
        await receive(store);
        return store.outbox.claim(1, RECEIVER);
      })();
      expect(claimedAfter?.subscription.secrets).toEqual([SECRET]);
      expect(claimedAfter?.subscription.signing).toBe("symmetric");
      // Signing given: brought up to date; v1a only, so the claim hands out no HMAC secret.
      const d = await store.destinations.ensure({
        name: "svc",
        url: "http://svc.internal/b",
        signing: "asymmetric",
      });
      expect(d).toMatchObject({ id: a.id, signing: "asymmetric" });
      expect((await store.destinations.ensure({ name: "svc", url: "http://svc.internal/b" })).signing).toBe(
        "asymmetric",
      );
      await receive(store);
      const [v1aOnly] = await store.outbox.claim(1, { ...RECEIVER, workerId: "w-v1a" });
      expect(v1aOnly?.subscription).toMatchObject({ signing: "asymmetric", secrets: [] });
      await store.close();
    });
  });
}
