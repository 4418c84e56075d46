// Where our sender and PostgreSQL spend per delivery (issue 47), one process, a fresh database:
//   pnpm build && PLANT_STORE_TEST_PG_URL=postgres://… node bench/pg-anatomy.mjs      (BENCH_EVENTS, default 5000)
// Publishes BENCH_EVENTS events through the store (64 at a time), then lets the sender's worker deliver them to the
// sink (bench/sink.mjs, 204). For each phase: statements sent per event/delivery, counted on the node side (every
// pg query call, BEGIN/COMMIT included; pg_stat_statements is not loaded on the bench server), rows inserted,
// updated and deleted and index tuples fetched per table (pg_stat_user_tables, pg_stat_user_indexes: which indexes
// were touched), WAL bytes and records (pg_stat_wal: server-wide, so other databases' writes meanwhile count too),
// and this process's CPU. Then EXPLAIN (ANALYZE, BUFFERS) of the claim and of the outcome statement over 64 rows,
// each in a transaction rolled back. Prints Markdown.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import { createSecret } from "@plant-store/core";
import pg from "pg";
import { CLAIM_BEGIN, claimSql, finishManySql } from "../../../packages/store/dist/pg/outbox-sql.js";
import { finishManyParams } from "../../../packages/store/dist/pg/pg-outcomes.js";
import { DISABLED_REASON, outcomeOf } from "../../../packages/store/dist/shared/outcomes.js";
import { createSender } from "../dist/index.js";
import { BENCH_TOKEN, body, recreateDatabase, ticks } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 5000);
// Subscriptions (each its own path on the sink): every event is delivered this many times.
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1);
const server = process.env.PLANT_STORE_BENCH_PG_URL ?? process.env.PLANT_STORE_TEST_PG_URL;
if (!server)
  throw new Error("Set PLANT_STORE_TEST_PG_URL (or PLANT_STORE_BENCH_PG_URL) to a PostgreSQL server.");
const url = Object.assign(new URL(server), { pathname: "/plant_store_bench_anatomy" }).href;

// Every statement the store sends goes through Client#query (the pool's too).
const statements = new Map();
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : config?.text;
  const key = (text ?? "?").replace(/\s+/g, " ").trim().slice(0, 60);
  statements.set(key, (statements.get(key) ?? 0) + 1);
  return originalQuery.call(this, config, ...rest);
};

const sinkProcess = spawn(process.execPath, [here("./sink.mjs"), "204"], {
  stdio: ["ignore", "pipe", "inherit"],
});
process.once("exit", () => sinkProcess.kill());
const port = await new Promise((resolve) =>
  sinkProcess.stdout.once("data", (chunk) => resolve(JSON.parse(String(chunk).split("\n")[0]).port)),
);
const sinkBase = `http://127.0.0.1:${port}`;

await recreateDatabase(url);
const monitor = new pg.Client({ connectionString: url });
await monitor.connect();
const q = (text, values) => originalQuery.call(monitor, text, values).then((r) => r.rows);

async function snapshot() {
  await q("SELECT pg_stat_clear_snapshot()");
  const tables = await q(
    "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = 'plant_store'",
  );
  const indexes = await q(
    "SELECT indexrelname, idx_scan, idx_tup_read FROM pg_stat_user_indexes WHERE schemaname = 'plant_store'",
  );
  const [wal] = await q("SELECT wal_records, wal_bytes FROM pg_stat_wal");
  const backends = await q(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  const pgTicks = new Map(backends.map((r) => [r.pid, ticks(r.pid)]));
  return { tables, indexes, wal, statements: new Map(statements), cpu: process.cpuUsage(), pgTicks };
}

/** Waits until the cumulative statistics show what the backends did (they report at most every second). */
const settle = () => new Promise((r) => setTimeout(r, 1200));

function report(title, before, after, n) {
  const per = (x) => (Number(x) / n).toFixed(2);
  const lines = [`### ${title} (${n})`, ""];
  const cpu = process.cpuUsage(before.cpu);
  lines.push(
    `node CPU (this process: store, sender, worker): ${((cpu.user + cpu.system) / n).toFixed(0)} µs`,
  );
  let pgTicks = 0;
  for (const [pid, t] of after.pgTicks) pgTicks += t - (before.pgTicks.get(pid) ?? 0);
  lines.push(`PostgreSQL backends' CPU (those alive at the end): ${((pgTicks * 10_000) / n).toFixed(0)} µs`);
  lines.push(
    `WAL: ${per(after.wal.wal_records - before.wal.wal_records)} records, ${per(after.wal.wal_bytes - before.wal.wal_bytes)} bytes`,
    "",
    "| statement | per event |",
    "| --- | ---: |",
  );
  let total = 0;
  for (const [text, count] of after.statements) {
    const d = count - (before.statements.get(text) ?? 0);
    if (d === 0) continue;
    total += d;
    lines.push(`| \`${text}\` | ${per(d)} |`);
  }
  lines.push(
    `| all | ${per(total)} |`,
    "",
    "| table | inserted | updated (HOT) | deleted |",
    "| --- | ---: | ---: | ---: |",
  );
  for (const t of after.tables) {
    const b = before.tables.find((x) => x.relname === t.relname);
    const d = (k) => Number(t[k]) - Number(b?.[k] ?? 0);
    if (d("n_tup_ins") + d("n_tup_upd") + d("n_tup_del") === 0) continue;
    lines.push(
      `| ${t.relname} | ${per(d("n_tup_ins"))} | ${per(d("n_tup_upd"))} (${per(d("n_tup_hot_upd"))}) | ${per(d("n_tup_del"))} |`,
    );
  }
  lines.push("", "| index | scans | tuples read |", "| --- | ---: | ---: |");
  for (const i of after.indexes) {
    const b = before.indexes.find((x) => x.indexrelname === i.indexrelname);
    const scans = Number(i.idx_scan) - Number(b?.idx_scan ?? 0);
    if (scans === 0) continue;
    lines.push(
      `| ${i.indexrelname} | ${per(scans)} | ${per(Number(i.idx_tup_read) - Number(b?.idx_tup_read ?? 0))} |`,
    );
  }
  console.log(lines.join("\n"), "\n");
}

const sender = await createSender({
  adminTokens: [BENCH_TOKEN],
  store: url,
  worker: false,
  allowNetworks: ["127.0.0.0/8"],
  logger: undefined,
});
for (let i = 0; i < SUBSCRIBERS; i++) {
  await sender.store.subscriptions.create({
    url: SUBSCRIBERS === 1 ? `${sinkBase}/plant/webhook` : `${sinkBase}/plant/webhook/${i}`,
    token: BENCH_TOKEN,
    secrets: [createSecret()],
  });
}
await sender.close();

// Phase 1: publish.
const publisher = await createSender({ adminTokens: [BENCH_TOKEN], store: url, worker: false });
await settle();
let before = await snapshot();
let next = 0;
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next < N) await publisher.store.outbox.publish(body(next++));
  }),
);
await settle();
report("publish (store.outbox.publish, 64 at a time), per event", before, await snapshot(), N);
await publisher.close();

// Phase 2: deliver.
const profile = process.env.BENCH_PROFILE && new Session();
if (profile) {
  profile.connect();
  await profile.post("Profiler.enable");
  await profile.post("Profiler.start");
}
before = await snapshot();
const worker = await createSender({
  adminTokens: [BENCH_TOKEN],
  store: url,
  allowNetworks: ["127.0.0.0/8"],
  concurrency: 64,
  perSubscription: 64,
});
await fetch(`${sinkBase}/_wait?n=${N * SUBSCRIBERS}`);
await settle();
const delivered = await snapshot();
if (profile) {
  const { profile: cpuProfile } = await profile.post("Profiler.stop");
  writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(cpuProfile));
}
report("deliver (claim, sign, POST, record), 64 in flight, per delivery", before, delivered, N * SUBSCRIBERS);
await worker.close();

// EXPLAIN (ANALYZE, BUFFERS) of a claim of 64 and of their outcomes, rolled back.
const explainer = await createSender({ adminTokens: [BENCH_TOKEN], store: url, worker: false });
for (let i = 0; i < 64; i++) await explainer.store.outbox.publish(body(N + i));
await explainer.close();
const s = '"plant_store"';
const now = Date.now();
await q(CLAIM_BEGIN); // the claim's own transaction settings
const claimParams = [now, 64, now + 30_000, "w", "token", [], 64, 64, DISABLED_REASON];
const claimPlan = await q(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${claimSql(s)}`, claimParams);
const claimed = await q(`SELECT id FROM ${s}.deliveries WHERE lease_token = 'token'`);
const outcomes = claimed.map((r) =>
  outcomeOf({ id: Number(r.id), leaseToken: "token" }, "delivered", { status: 204, latencyMs: 1 }, now),
);
const finishPlan = await q(
  `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${finishManySql(s)}`,
  finishManyParams(outcomes, now),
);
await q("ROLLBACK");
const plan = (rows) => rows.map((r) => r["QUERY PLAN"]).join("\n");
console.log(`### EXPLAIN (ANALYZE, BUFFERS) claim of 64\n\n\`\`\`\n${plan(claimPlan)}\n\`\`\`\n`);
console.log(
  `### EXPLAIN (ANALYZE, BUFFERS) outcomes of ${outcomes.length}\n\n\`\`\`\n${plan(finishPlan)}\n\`\`\`\n`,
);
await monitor.end();
const drop = new pg.Client({
  connectionString: Object.assign(new URL(server), { pathname: "/postgres" }).href,
});
await drop.connect();
await drop.query('DROP DATABASE IF EXISTS "plant_store_bench_anatomy" WITH (FORCE)');
await drop.end();
sinkProcess.kill();
