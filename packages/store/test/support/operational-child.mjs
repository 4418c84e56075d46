// Child of operational-crash.test.ts: publishes to every customer subscription, claims, and records outcomes that
// disable (410) and exhaust (failed) deliveries, and disables a subscription by hand, as fast as it can; each turn
// prints one line once its writes resolved. The parent kill -9s it at a random moment and checks that every change
// and its operational notice are both stored or both absent.
// Usage: operational-child.mjs <store url> [PostgreSQL schema]
const [url, schema] = process.argv.slice(2);
const { openStore } = await import("../../src/index.ts");
const store = await openStore({ url, ...(schema && { schema }), logger: { warn() {} } });
process.stdout.write("ready\n");

const LEASE = { leaseMs: 60_000, workerId: `child-${process.pid}` };
// Listed once (a listing opens every secret): a disable by hand of one already disabled changes nothing.
const customers = (await store.subscriptions.list()).filter((s) => !s.url.endsWith("/operator"));
let turn = 0;
for (;;) {
  turn++;
  await store.outbox.publish(`{"id":${turn},"name":"crash"}`);
  const claimed = await store.outbox.claim(64, LEASE);
  // One turn of outcomes (one group commit): the operator's deliveries delivered, 1 in 32 of the others gone, 1 in 8
  // failed for good, the rest delivered.
  await Promise.all(
    claimed.map((d, i) =>
      store.outbox.record(
        d,
        d.subscription.url.endsWith("/operator")
          ? { kind: "delivered", status: 200, latencyMs: 1 }
          : i % 32 === 0
            ? { kind: "gone", status: 410, latencyMs: 1 }
            : i % 8 === 1
              ? { kind: "failed", status: 500, latencyMs: 1 }
              : { kind: "delivered", status: 200, latencyMs: 1 },
      ),
    ),
  );
  await store.subscriptions.disable(customers[(process.pid + turn) % customers.length].id, "by hand");
  process.stdout.write(`turn ${turn}\n`);
}
