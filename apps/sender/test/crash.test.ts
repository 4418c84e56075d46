import { join } from "node:path";
import { openStore } from "@plant-store/store";
import { afterAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  api,
  cleanup,
  RECEIVER_BIN,
  type Running,
  SECRET,
  SENDER_BIN,
  start,
  stop,
  TOKEN,
  tempDir,
  until,
} from "./support.js";

afterAll(cleanup);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("crash safety", () => {
  it("10,000 events, the sender kill -9'd at random moments 5 times: the receiver holds exactly 10,000", async () => {
    const dir = tempDir();
    const senderDb = join(dir, "sender.db");
    const receiverDb = join(dir, "receiver.db");
    const receiver = await start(RECEIVER_BIN, ["--token", TOKEN, "--secret", SECRET, "--db", receiverDb]);
    const senderArgs = ["--admin-token", ADMIN, "--db", senderDb, "--allow-networks", "127.0.0.0/8"];
    const senderStart = () =>
      // An attempt is given 5 s and a delivery 8 attempts over half a minute: on a machine busy with other work a
      // slow answer is retried, never given up on (this test counts losses, not speed). A killed sender's leases
      // run out after timeout + 5 s.
      start(SENDER_BIN, [
        ...senderArgs,
        "--schedule",
        "0,200,400,800,1600,3200,6400,12800",
        "--timeout",
        "5000",
      ]);
    let sender: Running = await senderStart();
    try {
      const sub = await api(sender.url, "POST", "/subscriptions", {
        url: `${receiver.url}/plant/webhook`,
        token: TOKEN,
        secret: SECRET,
      });
      expect(sub.status).toBe(201);
      const total = 10_000;
      let published = 0;
      const publishSome = async (count: number) => {
        const batch = Array.from({ length: count }, () => published++);
        await Promise.all(
          batch.map(async (i) => {
            const res = await api(sender.url, "POST", "/events", `{"id":${i + 1},"name":"Plant ${i + 1}"}`, {
              "idempotency-key": `crash-${i}`,
            });
            expect(res.status).toBe(202);
          }),
        );
      };
      // Publish in chunks, and kill the sender at random moments between and during deliveries.
      let kills = 0;
      while (published < total) {
        for (let i = 0; i < 5 && published < total; i++) await publishSome(Math.min(400, total - published));
        if (kills < 5) {
          await sleep(Math.random() * 300);
          sender.child.kill("SIGKILL");
          await sender.exited;
          kills++;
          sender = await senderStart();
        }
      }
      expect(kills).toBe(5);
      const counts = await until(async () => {
        const store = await openStore(receiverDb);
        try {
          const n = await store.inbox.count();
          return n >= total && n;
        } finally {
          await store.close();
        }
      }, 300_000);
      // Deliveries a killed sender made but could not record stay leased until their lease (timeout + 5 s) runs out;
      // the running sender then sends them again (the receiver deduplicates) and records them.
      await until(async () => {
        const metrics = await (await fetch(`${sender.url}/metrics`)).text();
        const delivered = /plant_store_sender_deliveries\{state="delivered"\} (\d+)/.exec(metrics)?.[1];
        return Number(delivered) >= total;
      }, 300_000);
      const senderStats = await (async () => {
        await stop(sender);
        const store = await openStore(senderDb);
        try {
          return await store.outbox.stats();
        } finally {
          await store.close();
        }
      })();
      console.log(
        `crash: ${total} published, 5 × kill -9, receiver holds ${counts}; sender outbox: ${senderStats.delivered} delivered, ${senderStats.pending} pending, ${senderStats.failed} failed`,
      );
      expect(counts).toBe(total);
      expect(senderStats.delivered).toBe(total);
    } finally {
      await stop(sender, "SIGKILL");
      await stop(receiver);
    }
  }, 900_000); // a bound for a 2-core machine busy with other work (about a minute idle), not a speed check
});
