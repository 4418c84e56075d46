// The producer of bench/vs-pgboss.mjs for our sender, in its own process so its CPU is measured alone:
//   node bench/ours-publisher.mjs single <admin base url> <first> <count>   one `POST /events` per event, 64 at a time
//   node bench/ours-publisher.mjs batch <store url> <first> <count>         the library's `outbox.publishMany`, 1,000 a call
// Prints one JSON line: { available, cpuUs } (its CPU from the first publish to the last acknowledgement, µs), or
// { available: false, why } when this build has no `outbox.publishMany`.
import { openStore } from "@plant-store/store";
import { Pool } from "undici";
import { BENCH_TOKEN, body } from "./fill.mjs";

const [mode, target, first, count] = process.argv.slice(2);
const from = Number(first);
const n = Number(count);
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

if (mode === "single") {
  const pool = new Pool(target, { connections: 64 });
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) {
        const res = await pool.request({
          path: "/events",
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
          body: body(from + next++),
        });
        const text = await res.body.text();
        if (res.statusCode < 200 || res.statusCode >= 300)
          throw new Error(`POST /events: ${res.statusCode} ${text}`);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  await pool.close();
  out({ available: true, cpuUs: used.user + used.system });
} else {
  const store = await openStore({ url: target, migrate: false, logger: { warn() {} } });
  try {
    if (typeof store.outbox.publishMany !== "function") {
      out({ available: false, why: "outbox.publishMany is not in this build of @plant-store/store" });
    } else {
      const cpu = process.cpuUsage();
      for (let start = 0; start < n; start += 1000) {
        const size = Math.min(1000, n - start);
        // One `{ event }` per event: the value `publish` takes as its first argument.
        await store.outbox.publishMany(
          Array.from({ length: size }, (_, i) => ({ event: body(from + start + i) })),
        );
      }
      const used = process.cpuUsage(cpu);
      out({ available: true, cpuUs: used.user + used.system });
    }
  } finally {
    await store.close();
  }
}
