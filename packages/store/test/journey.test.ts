import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createSecret,
  createToken,
  deliver,
  STANDARD_SCHEDULE_MS,
  settleOutcome,
  verify,
} from "@plant-store/core";
import { afterEach, expect, it } from "vitest";
import { type ClaimedDelivery, openStore, type Store } from "../src/index.js";

// One event's journey through two stores over real HTTP, with core's deliver/verify/nextAttempt:
// sender outbox → signed POST → receiver inbox (deduplicated) → completed delivery.
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

it("delivers a published event into a receiver's inbox, retrying a 503 with the same webhook-id", async () => {
  const token = createToken();
  const secret = createSecret();
  const inbox = await openStore(":memory:");
  const outbox = await openStore({ url: ":memory:", logger: { warn() {} } });
  stores.push(inbox, outbox);

  const seen: { id: string; status: number; duplicate?: boolean }[] = [];
  let failNext = true;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const id = String(req.headers["webhook-id"]);
    const checked = await verify({
      secrets: [secret],
      id,
      timestamp: req.headers["webhook-timestamp"] as string,
      signature: req.headers["webhook-signature"] as string,
      body,
    });
    if (req.headers.authorization !== `Bearer ${token}` || !checked.ok) {
      res.writeHead(401).end();
      return;
    }
    if (failNext) {
      failNext = false;
      seen.push({ id, status: 503 });
      res.writeHead(503, { "retry-after": "1" }).end("busy");
      return;
    }
    const result = await inbox.inbox.record({ webhookId: id, body, headers: req.headers });
    seen.push({ id, status: 200, duplicate: result.duplicate });
    res.writeHead(200).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`;
    await outbox.subscriptions.create({ url, token, secrets: [secret] });
    const { messageId } = await outbox.outbox.publish({ id: 42, name: "Monstera", tag: "tropical" });

    const work = async (d: ClaimedDelivery) => {
      // The worker's steps: attempt, settle against the (compressed) schedule, record the one outcome value.
      const schedule = STANDARD_SCHEDULE_MS.map((ms) => Math.min(ms, 50));
      const outcome = settleOutcome(await deliver(d.subscription, d.message), d.attempt, {
        jitter: 0,
        schedule,
      });
      await outbox.outbox.record(d, outcome);
    };
    // Until the delivery is delivered (the 503's Retry-After makes the retry due a second later), bounded generously
    // for a busy machine: the evidence ends the loop, not a count of short waits.
    const giveUp = Date.now() + 20_000;
    while ((await outbox.outbox.stats()).delivered === 0 && Date.now() < giveUp) {
      const claimed = await outbox.outbox.claim(10, { leaseMs: 10_000, workerId: "w" });
      if (claimed.length === 0) await outbox.outbox.waitForWork(undefined, 50);
      for (const d of claimed) await work(d);
    }

    expect(seen).toEqual([
      { id: messageId, status: 503 },
      { id: messageId, status: 200, duplicate: false },
    ]);
    const [delivery] = (await outbox.outbox.listDeliveries()).items;
    // The successful attempt clears the error the failed one left.
    expect(delivery).toMatchObject({ state: "delivered", attempts: 2, lastStatus: 200, lastError: null });
    expect((await outbox.outbox.listAttempts(delivery!.id)).map((a) => [a.status, a.responseBody])).toEqual([
      [503, "busy"],
      [200, ""],
    ]);
    const received = await inbox.inbox.get(messageId);
    expect(Buffer.from(received!.body).toString()).toBe('{"id":42,"name":"Monstera","tag":"tropical"}');
    expect(received!.headers).toMatchObject({ "webhook-id": messageId, "content-type": "application/json" });
    expect(received!.headers).not.toHaveProperty("authorization");

    // A resend arrives with the same webhook-id: the receiver's inbox reports a duplicate.
    await outbox.outbox.resend(delivery!.id);
    const [again] = await outbox.outbox.claim(1, { leaseMs: 10_000, workerId: "w" });
    await work(again!);
    expect(seen.at(-1)).toEqual({ id: messageId, status: 200, duplicate: true });
    expect(await inbox.inbox.count()).toBe(1);
  } finally {
    server.close();
  }
}, 40_000);
