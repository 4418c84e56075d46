import { describe, expect, it } from "vitest";
import { StoreInputError } from "../../src/index.js";
import { NEW_PLANT, PLANT_SOLD, type TestBackend } from "../support/backends.js";

/** Inbox: idempotent record, listing, streaming, processing, counting. */
export function inboxConformance(backend: () => TestBackend): void {
  describe("inbox", () => {
    it("records the exact bytes and the allowed headers only", async () => {
      const store = await backend().open();
      const body = new Uint8Array([...Buffer.from('{ "id": 1,  "name":"Fern" }'), 0xff]);
      const result = await store.inbox.record({
        webhookId: "msg_a",
        body,
        headers: {
          "Webhook-Id": "msg_a",
          "webhook-timestamp": "1700000000",
          "content-type": "application/json",
          "user-agent": "test/1",
          authorization: "Bearer psk_secret",
          "webhook-signature": "v1,abc",
          cookie: "s=1",
          "x-other": "dropped",
        },
        receivedAt: 1_700_000_000_123,
      });
      expect(result.duplicate).toBe(false);
      const event = await store.inbox.get("msg_a");
      expect(Buffer.from(event!.body).equals(Buffer.from(body))).toBe(true);
      expect(event!.headers).toEqual({
        "webhook-id": "msg_a",
        "webhook-timestamp": "1700000000",
        "content-type": "application/json",
        "user-agent": "test/1",
      });
      expect(event!.receivedAt.getTime()).toBe(1_700_000_000_123);
      expect(event!.processedAt).toBeNull();
      const raw = JSON.stringify(await backend().sql("SELECT * FROM {t}inbox_events"));
      expect(raw).not.toContain("psk_secret");
      expect(raw).not.toContain("v1,abc");
    });

    it("accepts Fetch Headers and keeps extra allowed headers but never credentials", async () => {
      const store = await backend().open({ keepHeaders: ["X-Request-Id", "Authorization"] });
      await store.inbox.record({
        webhookId: "msg_h",
        body: "{}",
        headers: new Headers({
          "x-request-id": "r1",
          authorization: "Bearer x",
          "content-type": "application/json",
        }),
      });
      expect((await store.inbox.get("msg_h"))!.headers).toEqual({
        "x-request-id": "r1",
        "content-type": "application/json",
      });
    });

    it("refuses a kept header that is not a header name", async () => {
      for (const keepHeaders of [
        ["x request id"],
        ['x-"quoted"'],
        ["x-ünïcode"],
        [""],
        [42],
        "x-request-id",
      ]) {
        await expect(backend().open({ keepHeaders: keepHeaders as never })).rejects.toMatchObject({
          code: "invalid_option",
          message: expect.stringContaining("keepHeaders"),
        });
      }
    });

    it("keeps the first write and reports later ones as duplicates, not errors", async () => {
      const store = await backend().open();
      await store.inbox.record({ webhookId: "msg_1", body: NEW_PLANT(1, "first") });
      const again = await store.inbox.record({ webhookId: "msg_1", body: NEW_PLANT(1, "second") });
      expect(again).toEqual({ duplicate: true, webhookId: "msg_1" });
      expect(Buffer.from((await store.inbox.get("msg_1"))!.body).toString()).toBe(NEW_PLANT(1, "first"));
      expect(await store.inbox.count()).toBe(1);
    });

    it("deduplicates many concurrent writes of the same and different ids, across two instances", async () => {
      const [a, b] = [await backend().open(), await backend().open()];
      const ids = Array.from({ length: 60 }, (_, i) => `msg_${i}`);
      const writes = ids.flatMap((id, i) => [0, 1, 2, 3].map((k) => ({ id, store: (i + k) % 2 ? a : b, k })));
      writes.sort(() => Math.random() - 0.5);
      const results = await Promise.all(
        writes.map((w) => w.store.inbox.record({ webhookId: w.id, body: NEW_PLANT(w.k) })),
      );
      const firsts = results.filter((r) => !r.duplicate);
      expect(firsts).toHaveLength(ids.length);
      expect(new Set(firsts.map((r) => (r.duplicate ? "" : r.event.webhookId)))).toEqual(new Set(ids));
      expect(results.filter((r) => r.duplicate)).toHaveLength(ids.length * 3);
      expect(await a.inbox.count()).toBe(ids.length);
      // The stored body is the one of the write that was reported first.
      for (const r of firsts) {
        if (r.duplicate) continue;
        const stored = await b.inbox.get(r.event.webhookId);
        expect(Buffer.from(stored!.body).equals(Buffer.from(r.event.body))).toBe(true);
      }
    });

    it("rejects an empty webhook id with a StoreInputError", async () => {
      const store = await backend().open();
      await expect(store.inbox.record({ webhookId: "", body: "{}" })).rejects.toBeInstanceOf(StoreInputError);
    });

    it("rejects a body that is neither a string nor bytes (a JavaScript caller's mistake) with invalid_body", async () => {
      const store = await backend().open();
      for (const body of [5, {}, undefined, null, new ArrayBuffer(2)]) {
        await expect(
          store.inbox.record({ webhookId: "m", body: body as unknown as string }),
        ).rejects.toMatchObject({ name: "StoreInputError", code: "invalid_body" });
      }
      expect(await store.inbox.count()).toBe(0);
    });

    it("records each event's type (New Plant by default), lists by type and streams it", async () => {
      const store = await backend().open();
      const controller = new AbortController();
      const streamed: [string, string][] = [];
      const done = (async () => {
        for await (const e of store.inbox.stream({ after: 0, signal: controller.signal })) {
          streamed.push([e.webhookId, e.eventType]);
          if (streamed.length === 25) controller.abort();
        }
      })();
      const first = await store.inbox.record({ webhookId: "msg_plain", body: NEW_PLANT(1) });
      expect(first).toMatchObject({ duplicate: false, event: { eventType: "newPlant" } });
      const typed = [];
      for (let i = 0; i < 24; i++) {
        typed.push(
          await store.inbox.record({
            webhookId: `msg_${i}`,
            eventType: i % 3 === 0 ? "plantSold" : "newPlant",
            body: i % 3 === 0 ? JSON.stringify(PLANT_SOLD(i)) : NEW_PLANT(i),
          }),
        );
      }
      expect(typed.map((r) => !r.duplicate && r.event.eventType)).toEqual(
        Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? "plantSold" : "newPlant")),
      );
      expect((await store.inbox.get("msg_3"))!.eventType).toBe("plantSold");
      expect((await store.inbox.get("msg_plain"))!.eventType).toBe("newPlant");

      const sold: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.inbox.list({ type: "plantSold", limit: 3, cursor });
        expect(page.items.every((e) => e.eventType === "plantSold")).toBe(true);
        sold.push(...page.items.map((e) => e.webhookId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(sold).toEqual(["msg_21", "msg_18", "msg_15", "msg_12", "msg_9", "msg_6", "msg_3", "msg_0"]);
      expect((await store.inbox.list({ type: "newPlant", limit: 1000 })).items).toHaveLength(17);
      await store.inbox.markProcessed("msg_3");
      expect(
        (await store.inbox.list({ type: "plantSold", processed: true })).items.map((e) => e.webhookId),
      ).toEqual(["msg_3"]);
      expect((await store.inbox.list({ type: "plantEaten" })).items).toEqual([]);

      await done;
      expect(streamed).toHaveLength(25);
      expect(streamed.filter(([, type]) => type === "plantSold")).toHaveLength(8);
      expect(Object.fromEntries(streamed)).toMatchObject({ msg_plain: "newPlant", msg_0: "plantSold" });
    });

    it("refuses an event type that is empty, too long or not text, in record and list", async () => {
      const store = await backend().open();
      for (const eventType of ["", "x".repeat(101), "new plant", 5, null]) {
        await expect(
          store.inbox.record({ webhookId: "m", eventType: eventType as string, body: "{}" }),
        ).rejects.toMatchObject({ name: "StoreInputError", code: "invalid_event_type" });
        await expect(store.inbox.list({ type: eventType as string })).rejects.toMatchObject({
          code: "invalid_event_type",
        });
      }
      expect(await store.inbox.count()).toBe(0);
      await store.inbox.record({ webhookId: "m", eventType: "x".repeat(100), body: "{}" });
      expect((await store.inbox.get("m"))!.eventType).toHaveLength(100);
    });

    it("lists newest first with cursor pagination and filters by processed", async () => {
      const store = await backend().open();
      for (let i = 0; i < 23; i++) await store.inbox.record({ webhookId: `msg_${i}`, body: NEW_PLANT(i) });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await store.inbox.list({ limit: 10, cursor });
        seen.push(...page.items.map((e) => e.webhookId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `msg_${22 - i}`));

      expect(await store.inbox.markProcessed("msg_3", 5)).toBe(true);
      expect(await store.inbox.markProcessed("msg_3")).toBe(false);
      expect(await store.inbox.markProcessed("msg_missing")).toBe(false);
      expect((await store.inbox.get("msg_3"))!.processedAt).toEqual(new Date(5));
      expect((await store.inbox.list({ processed: true })).items.map((e) => e.webhookId)).toEqual(["msg_3"]);
      expect((await store.inbox.list({ processed: false, limit: 1000 })).items).toHaveLength(22);
      expect(await store.inbox.count()).toBe(23);
      expect(await store.inbox.count({ processed: true })).toBe(1);
      expect(await store.inbox.count({ processed: false })).toBe(22);
      await expect(store.inbox.list({ cursor: "bogus" })).rejects.toMatchObject({ code: "invalid_cursor" });
    });

    it("bounds a page by its bodies' bytes as well as its count; the cursor goes on from the cut", async () => {
      const store = await backend().open();
      const big = (i: number) => `{"id":${i},"name":"${"x".repeat(1000)}"}`;
      const sizes: number[] = [];
      for (let i = 0; i < 7; i++) {
        const body = i === 3 ? big(i).replace('"}', `${"y".repeat(5000)}"}`) : big(i);
        sizes.push(Buffer.byteLength(body));
        await store.inbox.record({ webhookId: `msg_b${i}`, body });
      }
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await store.inbox.list({ limit: 100, maxBytes: 2500, cursor });
        const bytes = page.items.reduce((n, e) => n + e.body.byteLength, 0);
        // At most maxBytes, unless one event alone is larger (a page always holds one).
        if (page.items.length > 1) expect(bytes).toBeLessThanOrEqual(2500);
        pages.push(page.items.map((e) => e.webhookId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.flat()).toEqual(["msg_b6", "msg_b5", "msg_b4", "msg_b3", "msg_b2", "msg_b1", "msg_b0"]);
      // Two ~1 KB bodies fit in 2,500 bytes; the 6 KB one is a page of its own.
      expect(pages).toEqual([["msg_b6", "msg_b5"], ["msg_b4"], ["msg_b3"], ["msg_b2", "msg_b1"], ["msg_b0"]]);
      expect((await store.inbox.list({ limit: 3, maxBytes: 1_000_000 })).items).toHaveLength(3);
      await expect(store.inbox.list({ maxBytes: 0 })).rejects.toMatchObject({ code: "invalid_argument" });
    });

    it("streams events as they are committed, in commit order, and resumes after a seq", async () => {
      const store = await backend().open();
      const old = await store.inbox.record({ webhookId: "msg_old", body: "{}" });
      const after = old.duplicate ? 0 : old.event.seq;
      const controller = new AbortController();
      const received: string[] = [];
      // A poll interval far beyond the test timeout: only commit notifications can deliver in time.
      const consumer = (async () => {
        for await (const event of store.inbox.stream({
          after,
          signal: controller.signal,
          pollIntervalMs: 600_000,
        })) {
          received.push(event.webhookId);
          if (received.length === 25) controller.abort();
        }
      })();
      await new Promise((r) => setTimeout(r, 50));
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.inbox.record({ webhookId: `msg_${i}`, body: "{}" })),
      );
      for (let i = 20; i < 25; i++) await store.inbox.record({ webhookId: `msg_${i}`, body: "{}" });
      await consumer;
      expect(received).toHaveLength(25);
      expect(received).not.toContain("msg_old");
      const seqs = (await store.inbox.list({ limit: 100 })).items.map((e) => e.seq).reverse();
      const bySeq = new Map((await store.inbox.list({ limit: 100 })).items.map((e) => [e.webhookId, e.seq]));
      const receivedSeqs = received.map((id) => bySeq.get(id)!);
      expect(receivedSeqs).toEqual([...receivedSeqs].sort((x, y) => x - y));
      expect(new Set(received).size).toBe(25);

      const resumed: string[] = [];
      const stop = new AbortController();
      for await (const event of store.inbox.stream({ after: seqs[20], signal: stop.signal })) {
        resumed.push(event.webhookId);
        if (resumed.length === 5) stop.abort();
      }
      const bySeqDesc = (await store.inbox.list({ limit: 100 })).items;
      const expected = bySeqDesc
        .filter((e) => e.seq > seqs[20]!)
        .map((e) => e.webhookId)
        .reverse();
      expect(resumed).toEqual(expected);
    });

    it("ends a stream when the store closes", async () => {
      const store = await backend().open();
      const done = (async () => {
        const out: unknown[] = [];
        for await (const e of store.inbox.stream({ pollIntervalMs: 600_000 })) out.push(e);
        return out;
      })();
      await new Promise((r) => setTimeout(r, 50));
      await store.close();
      await expect(done).resolves.toEqual([]);
    });

    it("acknowledges only committed writes: close() flushes the pending group commit", async () => {
      const first = await backend().open();
      const pending = Array.from({ length: 100 }, (_, i) =>
        first.inbox.record({ webhookId: `msg_${i}`, body: "{}" }),
      );
      await first.close();
      const results = await Promise.all(pending);
      expect(results.every((r) => !r.duplicate)).toBe(true);
      const reopened = await backend().open();
      expect(await reopened.inbox.count()).toBe(100);
      await expect(first.inbox.record({ webhookId: "late", body: "{}" })).rejects.toMatchObject({
        code: "store_closed",
      });
      await expect(first.ping()).rejects.toMatchObject({ code: "store_closed" });
    });
  });
}
