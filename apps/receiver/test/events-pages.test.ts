import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReceiver, type Receiver } from "../src/index.js";
import { ADMIN, TOKEN } from "./support.js";

// 40 stored events of ~1 MiB each (within the default body cap): the page that used to be built as one string.
const EVENTS = 40;
const NAME = 1_000_000;
const PAYLOAD = (i: number) => `{"id":${i},"name":"${"x".repeat(NAME)}"}`;
/** How many such payloads fit in the 4 MiB page bound: 4 (a fifth would not). */
const PER_PAGE = Math.floor((4 * 1024 * 1024) / Buffer.byteLength(PAYLOAD(10)));
let receiver: Receiver;
let url: string;
beforeAll(async () => {
  receiver = await createReceiver({ tokens: [TOKEN], adminTokens: [ADMIN] });
  for (let i = 0; i < EVENTS; i++)
    await receiver.store.inbox.record({ webhookId: `msg_big_${i}`, body: Buffer.from(PAYLOAD(i)) });
  url = await receiver.listen(0);
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

async function page(query: string) {
  const res = await fetch(`${url}/events?${query}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) as EventsPage };
}
interface EventsPage {
  data: { webhookId: string; payload: { id: number; name: string } }[];
  nextCursor: string | null;
}

describe("GET /events with large payloads", () => {
  it("bounds each page by bytes (4 MiB) as well as count; the cursor walks every event once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await page(`limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
      expect(answer.status).toBe(200);
      // Four ~1 MB payloads fit in 4 MiB, a fifth would not: pages of 4 instead of one page of 40 MB.
      expect(answer.body.data.length).toBeLessThanOrEqual(PER_PAGE);
      expect(answer.bytes).toBeLessThan(4 * 1024 * 1024 + 64 * 1024);
      for (const event of answer.body.data) expect(event.payload.name).toHaveLength(NAME);
      seen.push(...answer.body.data.map((e) => e.webhookId));
      cursor = answer.body.nextCursor;
      pages++;
    } while (cursor);
    expect(PER_PAGE).toBe(4);
    expect(pages).toBe(Math.ceil(EVENTS / PER_PAGE));
    expect(seen).toEqual(Array.from({ length: EVENTS }, (_, i) => `msg_big_${EVENTS - 1 - i}`));
  }, 60_000);

  it("health checks keep answering while pages are being served", async () => {
    const pages = Array.from({ length: 4 }, () => page("limit=1000"));
    const health = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${url}/healthz`).then((r) => r.status)),
    );
    expect(health).toEqual(Array(10).fill(200));
    for (const answer of await Promise.all(pages)) expect(answer.body.data).toHaveLength(PER_PAGE);
  }, 60_000);

  it("a small limit still bounds by count", async () => {
    const answer = await page("limit=2");
    expect(answer.body.data).toHaveLength(2);
    expect(answer.body.nextCursor).not.toBeNull();
  });
});
