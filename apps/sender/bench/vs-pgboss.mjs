// Our sender against a pg-boss sender on PostgreSQL, side by side in one run (issue 47):
//   pnpm build && PLANT_STORE_TEST_PG_URL=postgres://… pnpm --filter @plant-store/sender bench:pg-boss
// (BENCH_EVENTS deliveries measured, default 5000, after BENCH_WARMUP, default 1000; BENCH_ROUNDS, default 3.)
// Contenders, interleaved round by round (the order rotates), each on its own fresh database (created and dropped
// here), the same sink (bench/sink.mjs answering 204, its own process), 64 deliveries in flight, one subscriber:
//   pg-boss bulk   jobs stored with `insert` (1,000 a call), a worker signs (standardwebhooks) and POSTs (undici)
//   pg-boss send   one `send` per event, 64 at a time, the same worker
//   ours POST      the built bin (`plant-store-sender --db postgres://…`), one `POST /events` per event, 64 at a time
//   ours batch     the same bin; events stored with the library's `outbox.publishMany` (1,000 a call), when present
//   base post      with BENCH_BASELINE_BIN, another build's bin, one `POST /events` per event
//   before batch   with BENCH_BEFORE_BIN, another build's bin, events stored with this build's `outbox.publishMany`
// Each measures from the first publish until the sink has the last delivery. CPU per delivery = the producer + the
// sender process(es) + the PostgreSQL backends serving the bench database + the sink, user + system, from
// /proc/<pid>/stat (backends found in pg_stat_activity by datname) and the producer's own process.cpuUsage.
// Prints a Markdown table: medians over rounds; ratios are medians of each round's own ratio to pg-boss bulk.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { cpus } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createSecret } from "@plant-store/core";
import { openStore } from "@plant-store/store";
import pg from "pg";
import { BENCH_TOKEN, recreateDatabase, ticks } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 5000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Subscribers per event (each its own path on the sink): every event is delivered SUBSCRIBERS times, and CPU and
// rate are per delivery. pg-boss's peer has no fan-out, so with more than one only ours run.
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1);
// Another build's sender bin (e.g. the one from when issue 47 was filed) run as one more contender, POST and batch.
const BASELINE_BIN = process.env.BENCH_BASELINE_BIN;
// Other builds' sender bins (comma-separated) run with batch publish (e.g. the branch point of a change, and the
// change's first step), as "before-batch" (one), or "before1-batch", "before2-batch", ….
const BEFORE_BINS = process.env.BENCH_BEFORE_BIN?.split(",") ?? [];
// Contender keys to run (comma-separated), default all.
const ONLY = process.env.BENCH_CONTENDERS?.split(",");
const server = process.env.PLANT_STORE_BENCH_PG_URL ?? process.env.PLANT_STORE_TEST_PG_URL;
if (!server) {
  console.log(
    "bench/vs-pgboss.mjs: skipped, set PLANT_STORE_TEST_PG_URL (or PLANT_STORE_BENCH_PG_URL) to a PostgreSQL server.",
  );
  process.exit(0);
}
const dbUrl = (name) => Object.assign(new URL(server), { pathname: `/${name}` }).href;
const TICK_US = 1e6 / 100; // /proc times are in clock ticks (USER_HZ, 100 on Linux)

const children = new Set();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
function start(args, options = {}) {
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"], ...options });
  children.add(child);
  child.once("exit", () => children.delete(child));
  const lines = [];
  const waiting = [];
  let rest = "";
  child.stdout?.on("data", (chunk) => {
    rest += chunk;
    for (let i = rest.indexOf("\n"); i >= 0; i = rest.indexOf("\n")) {
      const line = rest.slice(0, i);
      rest = rest.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const line = () =>
    lines.length > 0
      ? Promise.resolve(lines.shift())
      : new Promise((resolve, reject) => {
          waiting.push(resolve);
          exited.then(() => reject(new Error(`${args[0]} exited (${child.exitCode})`)));
        });
  return { child, line, exited };
}
const stop = async ({ child, exited }, signal = "SIGTERM") => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await exited;
};

async function get(url) {
  const res = await fetch(url);
  return res.json();
}
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Ticks of every backend serving database `name` (new backends count from 0; a backend that ends is lost). */
async function backendTicks(admin, name) {
  const { rows } = await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [name]);
  return new Map(rows.map((r) => [r.pid, ticks(r.pid)]));
}
const backendDelta = (before, after) => {
  let sum = 0;
  for (const [pid, t] of after) sum += t - (before.get(pid) ?? 0);
  return sum;
};

async function createSubscriber(url, sinkUrl, secret, open = openStore) {
  const store = await open({ url, logger: { warn() {} } });
  try {
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const path = SUBSCRIBERS === 1 ? sinkUrl : `${sinkUrl}/${i}`;
      await store.subscriptions.create({ url: path, token: BENCH_TOKEN, secrets: [secret] });
    }
  } finally {
    await store.close();
  }
}

/** A contender's processes: `publish(first, count)` stores events (answers the producer's CPU, µs, or null). */
async function startOurs(url, sinkUrl, mode, bin = here("../dist/bin.js")) {
  // A baseline build's database gets that build's schema: its own store creates it (apps/sender/dist/bin.js →
  // packages/store/dist/index.js of the same checkout).
  const open =
    bin === here("../dist/bin.js")
      ? openStore
      : (await import(new URL("../../../packages/store/dist/index.js", pathToFileURL(bin)).href)).openStore;
  await createSubscriber(url, sinkUrl, createSecret(), open);
  const port = await freePort();
  const args = [bin, "--db", url, "--admin-token", BENCH_TOKEN, "--port", String(port)];
  args.push("--allow-networks", "127.0.0.0/8", "--concurrency", "64", "--per-subscription", "64");
  const sender = start(args, { stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) break;
    if (sender.child.exitCode !== null) throw new Error("the sender exited");
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pids: [sender.child.pid],
    async publish(first, count) {
      // Another build's batch publish goes through that build's own store (its schema), by its own copy of this
      // producer when it has one.
      const own = fileURLToPath(new URL("../bench/ours-publisher.mjs", pathToFileURL(bin)));
      const producer = start([
        mode === "batch" && existsSync(own) ? own : here("./ours-publisher.mjs"),
        mode,
        mode === "single" ? base : url,
        first,
        count,
      ]);
      const result = JSON.parse(await producer.line());
      await producer.exited;
      return result.available ? result.cpuUs : { unavailable: result.why };
    },
    stop: () => stop(sender),
  };
}

async function startPgBoss(url, sinkUrl, mode) {
  const peer = start([here("./pgboss-peer.mjs"), url, sinkUrl, createSecret(), BENCH_TOKEN]);
  if ((await peer.line()) !== "ready") throw new Error("pg-boss peer did not start");
  return {
    pids: [peer.child.pid],
    async publish(first, count) {
      peer.child.stdin.write(`publish ${mode} ${first} ${count}\n`);
      if ((await peer.line()) !== "published") throw new Error("pg-boss peer did not publish");
      return 0; // its producer runs in the measured process
    },
    async stop() {
      peer.child.stdin.write("stop\n");
      await peer.exited;
    },
  };
}

const ALL = [
  {
    name: "pg-boss, jobs inserted in bulk, then a worker",
    key: "boss-bulk",
    run: (u, s) => startPgBoss(u, s, "bulk"),
  },
  { name: "pg-boss, one `send` per event", key: "boss-send", run: (u, s) => startPgBoss(u, s, "send") },
  { name: "ours, one `POST /events` per event", key: "ours-post", run: (u, s) => startOurs(u, s, "single") },
  { name: "ours, `outbox.publishMany` (batch)", key: "ours-batch", run: (u, s) => startOurs(u, s, "batch") },
  ...(BASELINE_BIN
    ? [
        {
          name: `baseline build (${BASELINE_BIN}), one \`POST /events\` per event`,
          key: "base-post",
          run: (u, s) => startOurs(u, s, "single", BASELINE_BIN),
        },
      ]
    : []),
  ...BEFORE_BINS.map((bin, i) => ({
    name: `another build (${bin}), \`outbox.publishMany\` (batch)`,
    key: BEFORE_BINS.length === 1 ? "before-batch" : `before${i + 1}-batch`,
    run: (u, s) => startOurs(u, s, "batch", bin),
  })),
];
const CONTENDERS = ALL.filter(
  (c) => (!ONLY || ONLY.includes(c.key)) && (SUBSCRIBERS === 1 || !c.key.startsWith("boss")),
);

async function measure(contender, sink, admin) {
  const name = `plant_store_bench_${contender.key.replace("-", "_")}`;
  const url = dbUrl(name);
  await recreateDatabase(url);
  const run = await contender.run(url, sink.url);
  try {
    await get(`${sink.base}/_reset`);
    const warm = await run.publish(0, WARMUP);
    if (warm?.unavailable) return { unavailable: warm.unavailable };
    await get(`${sink.base}/_wait?n=${WARMUP * SUBSCRIBERS}`);
    await get(`${sink.base}/_reset`);
    const pgBefore = await backendTicks(admin, name);
    const nodeBefore = run.pids.map(ticks);
    const sinkBefore = ticks(sink.child.pid);
    const t0 = performance.now();
    const producerUs = await run.publish(WARMUP, N);
    const D = N * SUBSCRIBERS;
    const done = await get(`${sink.base}/_wait?n=${D}`);
    const seconds = (performance.now() - t0) / 1000;
    const pgTicks = backendDelta(pgBefore, await backendTicks(admin, name));
    const nodeTicks = run.pids.reduce((sum, pid, i) => sum + ticks(pid) - nodeBefore[i], 0);
    const sinkTicks = ticks(sink.child.pid) - sinkBefore;
    if (done.distinct < D) throw new Error(`${contender.key}: ${done.distinct} of ${D} delivered`);
    const per = (t) => (t * TICK_US) / D;
    const node = per(nodeTicks) + producerUs / D;
    return {
      node,
      producer: producerUs / D,
      pg: per(pgTicks),
      sink: per(sinkTicks),
      all: node + per(pgTicks) + per(sinkTicks),
      rate: D / seconds,
    };
  } finally {
    await run.stop();
    const drop = new pg.Client({ connectionString: dbUrl("postgres") });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => drop.end());
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, digits = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const sinkProcess = start([here("./sink.mjs"), "204"]);
const sinkPort = JSON.parse(await sinkProcess.line()).port;
const sink = {
  child: sinkProcess.child,
  base: `http://127.0.0.1:${sinkPort}`,
  url: `http://127.0.0.1:${sinkPort}/plant/webhook`,
};
const admin = new pg.Client({ connectionString: dbUrl("postgres") });
await admin.connect();
const results = new Map(CONTENDERS.map((c) => [c.key, []]));
const unavailable = new Map();
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length]);
    for (const contender of order) {
      if (unavailable.has(contender.key)) continue;
      const r = await measure(contender, sink, admin);
      if (r.unavailable) {
        unavailable.set(contender.key, r.unavailable);
        console.log(`round ${round + 1}/${ROUNDS}, ${contender.key}: not available (${r.unavailable})`);
        continue;
      }
      results.get(contender.key).push(r);
      console.log(
        `round ${round + 1}/${ROUNDS}, ${contender.key}: ${fmt(r.all)} µs/delivery (node ${fmt(r.node)}, of which the producer ${fmt(r.producer)}, PostgreSQL ${fmt(r.pg)}, sink ${fmt(r.sink)}), ${fmt(r.rate)} deliveries/s`,
      );
    }
  }
} finally {
  await admin.end();
  await stop(sinkProcess);
}

// Ratios against pg-boss bulk, else the baseline build's POST, else the first contender that ran.
const ran = (key) => (results.get(key)?.length ?? 0) > 0;
const baseKey = ["boss-bulk", "base-post"].find(ran) ?? CONTENDERS.find((c) => ran(c.key))?.key;
const base = results.get(baseKey);
const rows = CONTENDERS.map((c) => {
  const runs = results.get(c.key);
  if (unavailable.has(c.key) || runs.length === 0)
    return `| ${c.name} | not available: ${unavailable.get(c.key) ?? "no run"} | | | | | | |`;
  const m = (f) => median(runs.map(f));
  const cpuRatio = median(runs.map((r, i) => r.all / base[i].all));
  const rateRatio = median(runs.map((r, i) => r.rate / base[i].rate));
  return `| ${c.name} | ${fmt(m((r) => r.all))} | ${fmt(m((r) => r.node))} | ${fmt(m((r) => r.pg))} | ${fmt(m((r) => r.sink))} | ${fmt(m((r) => r.rate))} | ${cpuRatio.toFixed(2)}× | ${rateRatio.toFixed(2)}× |`;
});
console.log(
  [
    "",
    `${fmt(N * SUBSCRIBERS)} deliveries (${fmt(N)} events × ${SUBSCRIBERS} subscribers) after ${fmt(WARMUP)} events of warm-up, ${ROUNDS} interleaved rounds, 64 in flight; ratios against ${baseKey}; Node ${process.version}, ${cpus().length} cores shared by PostgreSQL, the sink and the contenders`,
    "",
    `| contender | CPU µs/delivery | of which node (producer + sender) | PostgreSQL backends | sink | deliveries/s | CPU ÷ ${baseKey} | rate ÷ ${baseKey} |`,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n"),
);
