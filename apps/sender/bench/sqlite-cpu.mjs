// The SQLite counterpart of bench/pg-anatomy.mjs: this process's CPU per event to publish and per delivery to deliver
// (claim, sign, POST, record), the sender's outbox a SQLite file (WAL), the sink bench/sink.mjs (204) in its own
// process, 64 in flight:
//   pnpm build && node bench/sqlite-cpu.mjs      (BENCH_EVENTS, default 5000; BENCH_ROUNDS, default 3; medians)
// The delivery figure includes the worker's start (opening the store, the admin server), spread over BENCH_EVENTS.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret } from "@plant-store/core";
import { createSender } from "../dist/index.js";
import { BENCH_TOKEN, body } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "plant-store-sqlite-cpu-"));
const sink = spawn(process.execPath, [here("./sink.mjs"), "204"], { stdio: ["ignore", "pipe", "inherit"] });
process.once("exit", () => {
  sink.kill();
  rmSync(dir, { recursive: true, force: true });
});
const port = await new Promise((resolve) =>
  sink.stdout.once("data", (chunk) => resolve(JSON.parse(String(chunk).split("\n")[0]).port)),
);
const sinkBase = `http://127.0.0.1:${port}`;
const cpuSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
};

const publishes = [];
const deliveries = [];
for (let round = 0; round < ROUNDS; round++) {
  const store = join(dir, `outbox-${round}.db`);
  const publisher = await createSender({ adminTokens: [BENCH_TOKEN], store, worker: false });
  await publisher.store.subscriptions.create({
    url: `${sinkBase}/plant/webhook`,
    token: BENCH_TOKEN,
    secrets: [createSecret()],
  });
  let next = 0;
  let start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < N) await publisher.store.outbox.publish(body(next++));
    }),
  );
  publishes.push(cpuSince(start));
  await publisher.close();
  await fetch(`${sinkBase}/_reset`);
  start = process.cpuUsage();
  const worker = await createSender({
    adminTokens: [BENCH_TOKEN],
    store,
    allowNetworks: ["127.0.0.0/8"],
    concurrency: 64,
    perSubscription: 64,
  });
  await fetch(`${sinkBase}/_wait?n=${N}`);
  deliveries.push(cpuSince(start));
  await worker.close();
  console.log(
    `round ${round + 1}/${ROUNDS}: publish ${publishes.at(-1).toFixed(0)} µs/event, deliver ${deliveries.at(-1).toFixed(0)} µs/delivery`,
  );
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `SQLite, ${N} events, ${ROUNDS} rounds (medians), this process's CPU: publish ${median(publishes).toFixed(0)} µs/event (store.outbox.publish, 64 at a time), deliver ${median(deliveries).toFixed(0)} µs/delivery (64 in flight)`,
);
