#!/usr/bin/env node
// Store benchmark, one run, bounded time (BENCH_SECONDS per case, default 3; ~40 s in all):
//   inbox  — durable, acknowledged writes/s: group commit vs one transaction per event
//            (SQLite: WAL + synchronous=FULL; PostgreSQL: synchronous_commit as configured)
//   publish — SQLite: acknowledged outbox publishes/s, group commit vs one transaction per publish
//   outbox — claim + complete cycles/s: claim(1) by one worker (baseline) vs claim(32) by 4 workers
// PostgreSQL runs when PLANT_STORE_BENCH_PG_URL / PLANT_STORE_TEST_PG_URL is set, or the local
// default postgres://postgres@127.0.0.1:5432/postgres answers. Uses the built dist: `pnpm build` first.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
if (!existsSync(dist)) {
  console.error(
    "bench: packages/store/dist is missing; run `pnpm build` (or `pnpm bench` at the root) first.",
  );
  process.exit(1);
}
const { openStore } = await import(dist);
const pg = (await import("pg")).default;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = 64;
const quiet = { warn() {} };
const rows = [];

/** Runs `worker` on `concurrency` loops for SECONDS; returns completed operations per second. */
async function measure(concurrency, worker) {
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < deadline) {
        const n = await worker(lane);
        if (n === 0) return; // nothing left to do
        done += n;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

async function inboxCase(backend, open) {
  let counter = 0;
  const body = JSON.stringify({ id: 1, name: "Monstera deliciosa", tag: "tropical" });
  const headers = { "content-type": "application/json", "user-agent": "bench" };
  const results = {};
  for (const groupCommit of [false, true]) {
    const store = await open({ groupCommit });
    const rate = await measure(CONCURRENCY, async () => {
      await store.inbox.record({ webhookId: `msg_${process.pid}_${counter++}`, body, headers });
      return 1;
    });
    await store.close();
    results[groupCommit] = rate;
  }
  const base = results.false;
  rows.push([backend, "inbox.record", `1 transaction per event, ${CONCURRENCY} in flight`, results.false, 1]);
  rows.push([
    backend,
    "inbox.record",
    `group commit, ${CONCURRENCY} in flight`,
    results.true,
    results.true / base,
  ]);
}

/** SQLite: publishes (one message + its fan-out, committed with synchronous=FULL) grouped vs one per transaction. */
async function publishCase(backend, open) {
  let counter = 0;
  const results = {};
  for (const groupCommit of [false, true]) {
    const store = await open({ groupCommit });
    await store.subscriptions.create({ url: "https://bench.example/hook", token: "psk_bench" });
    results[groupCommit] = await measure(CONCURRENCY, async () => {
      await store.outbox.publish({ id: counter++, name: "Monstera deliciosa", tag: "tropical" });
      return 1;
    });
    await store.close();
  }
  const label = `${CONCURRENCY} in flight, 1 subscription`;
  rows.push([backend, "outbox.publish", `1 transaction per event, ${label}`, results.false, 1]);
  rows.push([
    backend,
    "outbox.publish",
    `group commit, ${label}`,
    results.true,
    results.true / results.false,
  ]);
}

async function outboxCase(backend, open) {
  const store = await open({});
  for (let i = 0; i < 10; i++)
    await store.subscriptions.create({ url: `https://bench${i}.example/hook`, token: `psk_bench${i}` });
  // Enough backlog for both runs: 10 deliveries per publish.
  const target = backend === "SQLite" ? 60_000 : 60_000;
  const seedStart = performance.now();
  let published = 0;
  while (published * 10 < target && performance.now() - seedStart < 15_000) {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.outbox.publish({ id: published * 50 + i, name: "Fern" })),
    );
    published += 50;
  }
  const cases = [
    { label: "claim(1) + complete, 1 worker", workers: 1, batch: 1 },
    { label: "claim(32) + complete, 4 workers", workers: 4, batch: 32 },
  ];
  let base;
  for (const c of cases) {
    const rate = await measure(c.workers, async (lane) => {
      const claimed = await store.outbox.claim(c.batch, { leaseMs: 60_000, workerId: `w${lane}` });
      for (const d of claimed) await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
      return claimed.length;
    });
    base ??= rate;
    rows.push([backend, "outbox claim+complete", c.label, rate, rate / base]);
  }
  const stats = await store.outbox.stats();
  await store.close();
  return stats;
}

async function pgUrl() {
  const url =
    process.env.PLANT_STORE_BENCH_PG_URL ??
    process.env.PLANT_STORE_TEST_PG_URL ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return undefined;
  }
}

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-"));
try {
  let n = 0;
  const sqlite = (options) => openStore({ url: join(dir, `bench-${n++}.db`), logger: quiet, ...options });
  await inboxCase("SQLite", sqlite);
  await publishCase("SQLite", sqlite);
  await outboxCase("SQLite", sqlite);

  const url = await pgUrl();
  if (url) {
    const schema = `plant_store_bench_${process.pid}`;
    const open = (options) => openStore({ url, schema, logger: quiet, ...options });
    try {
      await inboxCase("PostgreSQL", open);
      await outboxCase("PostgreSQL", open);
    } finally {
      const client = new pg.Client(url);
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  } else {
    rows.push([
      "PostgreSQL",
      "—",
      "skipped: set PLANT_STORE_TEST_PG_URL (no local server answered)",
      Number.NaN,
      Number.NaN,
    ]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const header = ["backend", "operation", "mode", "ops/s", "× baseline"];
const table = rows.map(([b, op, mode, rate, ratio]) => [
  b,
  op,
  mode,
  Number.isNaN(rate) ? "—" : Math.round(rate).toLocaleString("en-US"),
  Number.isNaN(ratio) ? "—" : `${ratio.toFixed(2)}×`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
const line = (cells) =>
  `| ${cells.map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ")} |`;
console.log(`\n@plant-store/store benchmark — Node ${process.version}, ${SECONDS} s per case\n`);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i >= 3 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`);
for (const r of table) console.log(line(r));
console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
