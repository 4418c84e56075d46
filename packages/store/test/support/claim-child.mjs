// Child of sqlite.test.ts: claims and completes deliveries from a shared SQLite file until none is
// left, printing each claimed delivery id. Starts on "go" from stdin so both children overlap.
// Usage: claim-child.mjs <db file> <worker id>
import { once } from "node:events";

const [file, workerId] = process.argv.slice(2);
const { openStore } = await import("../../src/index.ts");
const store = await openStore(file);
process.stdout.write("ready\n");
await once(process.stdin, "data");

for (;;) {
  const claimed = await store.outbox.claim(3, { leaseMs: 60_000, workerId });
  if (claimed.length === 0) break;
  // "Deliver" outside any transaction, as a worker does: the other process claims meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 2));
  for (const delivery of claimed) {
    process.stdout.write(`${delivery.id}\n`);
    await store.outbox.record(delivery, { kind: "delivered", status: 200, latencyMs: 0 });
  }
}
await store.close();
process.exit(0);
