// Sender benchmark, one run (ratios against a baseline measured in the same run):
//   pnpm build && pnpm --filter @plant-store/sender bench       (BENCH_EVENTS, default 20000)
// 1. throughput: deliveries/s from a durable SQLite outbox (WAL) to a bare sink in another process,
//    vs a raw undici loop posting the same bodies at the same concurrency;
// 2. latency: enqueue → delivered at 100 events/s for 10 s (p50, p99).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { Agent, request } from "undici";
import { createSender } from "../dist/index.js";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 20_000);
const CONCURRENCY = 64;
const token = createToken();
const secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-sender-bench-"));
const body = (i) => `{"id":${i + 1},"name":"Monstera deliciosa","tag":"tropical"}`;

async function startSink(log = false) {
  const child = spawn(process.execPath, [here("./sink.mjs"), ...(log ? ["log"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const port = await new Promise((resolve) => {
    child.stdout.on("data", function first(chunk) {
      out += chunk;
      const line = out.split("\n")[0];
      if (line.includes("port")) {
        child.stdout.off("data", first);
        out = out.slice(line.length + 1);
        resolve(JSON.parse(line).port);
      }
    });
  });
  child.stdout.on("data", (chunk) => (out += chunk));
  return { child, url: `http://127.0.0.1:${port}/plant/webhook`, lines: () => out };
}

// 1a. raw undici loop
let sink = await startSink();
const agent = new Agent({ connections: CONCURRENCY });
let next = 0;
let t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      const i = next++;
      const res = await request(sink.url, {
        method: "POST",
        dispatcher: agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body(i),
      });
      await res.body.dump();
    }
  }),
);
const rawRate = N / ((performance.now() - t0) / 1000);
await agent.close();

// 1b. the sender: the outbox is filled first (worker off), then the worker drains it.
const db = join(dir, "sender.db");
const fill = await createSender({ adminTokens: [token], store: db, worker: false });
const sub = await fill.store.subscriptions.create({ url: sink.url, token, secrets: [secret] });
for (let i = 0; i < N; i++) await fill.store.outbox.publish(body(i));
await fill.close();
const sender = await createSender({
  adminTokens: [token],
  store: db,
  allowNetworks: ["127.0.0.0/8"],
  concurrency: CONCURRENCY,
  perSubscription: CONCURRENCY,
});
t0 = performance.now();
for (;;) {
  const stats = await sender.store.outbox.stats();
  if (stats.delivered >= N) break;
  await new Promise((r) => setTimeout(r, 20));
}
const senderRate = N / ((performance.now() - t0) / 1000);
await sender.close();
sink.child.kill();

// 2. latency at 100 events/s
sink = await startSink(true);
const live = await createSender({
  adminTokens: [token],
  store: join(dir, "latency.db"),
  allowNetworks: ["127.0.0.0/8"],
});
await live.store.subscriptions.create({ url: sink.url, token, secrets: [secret] });
const enqueued = new Map();
const seconds = 10;
for (let i = 0; i < 100 * seconds; i++) {
  const at = performance.timeOrigin + performance.now();
  const { messageId } = await live.store.outbox.publish(body(i));
  enqueued.set(messageId, at);
  const wait = at + 10 - (performance.timeOrigin + performance.now());
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
for (;;) {
  if ((await live.store.outbox.stats()).delivered >= 100 * seconds) break;
  await new Promise((r) => setTimeout(r, 20));
}
await live.close();
await new Promise((r) => setTimeout(r, 100));
const latencies = sink
  .lines()
  .trim()
  .split("\n")
  .map((l) => l.split(" "))
  .filter(([id]) => enqueued.has(id))
  .map(([id, t]) => Number(t) - enqueued.get(id))
  .sort((a, b) => a - b);
sink.child.kill();
rmSync(dir, { recursive: true, force: true });
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);

const table = [
  "| measure | value |",
  "| --- | ---: |",
  `| raw undici loop, ${CONCURRENCY} in flight (baseline) | ${Math.round(rawRate).toLocaleString("en-US")} req/s |`,
  `| sender from a durable SQLite outbox, ${CONCURRENCY} in flight | ${Math.round(senderRate).toLocaleString("en-US")} deliveries/s |`,
  `| sender ÷ raw loop | ${(senderRate / rawRate).toFixed(2)}× |`,
  `| enqueue → delivered at 100 events/s, p50 | ${pct(0.5)} ms |`,
  `| enqueue → delivered at 100 events/s, p99 | ${pct(0.99)} ms |`,
].join("\n");
console.log(table);
writeFileSync(
  here("../BENCH.md"),
  `# plant-store-sender benchmark

Command: \`pnpm build && pnpm --filter @plant-store/sender bench\` (\`BENCH_EVENTS\`, default 20,000). One run;
the sink is a bare node:http server in its own process; the raw loop posts the same bodies with undici at the same
concurrency. The sender's outbox is SQLite in WAL mode (publishes commit with \`synchronous=FULL\`; claims and
outcomes with \`synchronous=NORMAL\`, crash-safe); each delivery is signed (HMAC-SHA256), goes through the SSRF guard
and is sent with undici's \`request\`. Node
${process.version}, ${cpus().length} cores shared by the sink, the sender and SQLite, ${new Date().toISOString().slice(0, 10)}.

${table}

Goals (issue 6): ≥ 5,000 deliveries/s, ≥ 0.7× the raw loop, p50 ≤ 5 ms.
`,
);
void sub;
