// Our sender against a pg-boss sender on PostgreSQL, side by side in one run (issue 47):
//   pnpm build && PLANT_STORE_TEST_PG_URL=postgres://… pnpm --filter @plant-store/sender bench:pg-boss
// (BENCH_EVENTS deliveries measured, default 5000, after BENCH_WARMUP, default 1000; BENCH_ROUNDS, default 3.)
// Contenders, interleaved round by round (the order rotates), each on its own fresh database (created and dropped
// here), the same sink (bench/sink.mjs answering 204, its own process), 64 deliveries in flight, one subscriber:
//   pg-boss bulk   jobs stored with `insert` (1,000 a call), a worker signs (standardwebhooks) and POSTs (undici)
//   pg-boss send   one `send` per event, 64 at a time, the same worker
//   ours POST      the built bin (`plant-store-sender --db postgres://…`), one `POST /events` per event, 64 at a time
//   ours batch     the same bin; events stored with the library's `outbox.publishMany` (1,000 a call), when present
// Each measures from the first publish until the sink has the last delivery. CPU per delivery = the producer + the
// sender process(es) + the PostgreSQL backends serving the bench database + the sink, user + system, from
// /proc/<pid>/stat (backends found in pg_stat_activity by datname) and the producer's own process.cpuUsage.
// Prints a Markdown table: medians over rounds; ratios are medians of each round's own ratio to pg-boss bulk.
// BENCH_SUBSCRIBERS=10: each event fans out to 10 subscriptions (all to the sink); BENCH_EVENTS and BENCH_WARMUP still
// count deliveries (events = deliveries / subscribers). The pg-boss peer has no fan-out: it runs with one only.
// BENCH_BASELINE_BUILD=<checkout>: also runs that checkout's built sender (`apps/sender/dist/bin.js`, one
// `POST /events` per event), e.g. the build from when issue 47 was filed, in the same rounds.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { createSecret } from "@plant-store/core";
import pg from "pg";
import { BENCH_TOKEN, recreateDatabase } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 5000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1);
const BASELINE = process.env.BENCH_BASELINE_BUILD;
if (!Number.isInteger(N / SUBSCRIBERS) || !Number.isInteger(WARMUP / SUBSCRIBERS))
  throw new Error("BENCH_EVENTS and BENCH_WARMUP count deliveries: make them multiples of BENCH_SUBSCRIBERS");
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

/** user + system ticks of a process, or 0 once it is gone. */
function ticks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
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

/** `SUBSCRIBERS` subscriptions to the sink, created through the sender's admin API (any build's). */
async function createSubscribers(base, sinkUrl) {
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const res = await fetch(`${base}/subscriptions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
      body: JSON.stringify({ url: `${sinkUrl}?s=${i}`, token: BENCH_TOKEN, secret: createSecret() }),
    });
    if (res.status !== 201) throw new Error(`POST /subscriptions: ${res.status} ${await res.text()}`);
  }
}

/** A contender's processes: `publish(first, count)` stores events (answers the producer's CPU, µs, or null). */
async function startOurs(url, sinkUrl, mode, bin = here("../dist/bin.js")) {
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
  await createSubscribers(base, sinkUrl);
  return {
    pids: [sender.child.pid],
    async publish(first, count) {
      const producer = start([
        here("./ours-publisher.mjs"),
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
  if (SUBSCRIBERS !== 1) return { unavailable: "one subscriber only (the peer has no fan-out)" };
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

const CONTENDERS = [
  {
    name: "pg-boss, jobs inserted in bulk, then a worker",
    key: "boss-bulk",
    run: (u, s) => startPgBoss(u, s, "bulk"),
  },
  { name: "pg-boss, one `send` per event", key: "boss-send", run: (u, s) => startPgBoss(u, s, "send") },
  { name: "ours, one `POST /events` per event", key: "ours-post", run: (u, s) => startOurs(u, s, "single") },
  { name: "ours, `outbox.publishMany` (batch)", key: "ours-batch", run: (u, s) => startOurs(u, s, "batch") },
  ...(BASELINE
    ? [
        {
          name: `ours at ${BASELINE}, one \`POST /events\` per event`,
          key: "base-post",
          run: (u, s) => startOurs(u, s, "single", `${BASELINE}/apps/sender/dist/bin.js`),
        },
      ]
    : []),
];

async function measure(contender, sink, admin) {
  const name = `plant_store_bench_${contender.key.replace("-", "_")}`;
  const url = dbUrl(name);
  await recreateDatabase(url);
  const run = await contender.run(url, sink.url);
  if (run.unavailable) return run;
  try {
    await get(`${sink.base}/_reset`);
    const warm = await run.publish(0, WARMUP / SUBSCRIBERS);
    if (warm?.unavailable) return { unavailable: warm.unavailable };
    await get(`${sink.base}/_wait?n=${WARMUP}`);
    await get(`${sink.base}/_reset`);
    const pgBefore = await backendTicks(admin, name);
    const nodeBefore = run.pids.map(ticks);
    const sinkBefore = ticks(sink.child.pid);
    const t0 = performance.now();
    const producerUs = await run.publish(WARMUP / SUBSCRIBERS, N / SUBSCRIBERS);
    const done = await get(`${sink.base}/_wait?n=${N}`);
    const seconds = (performance.now() - t0) / 1000;
    const pgTicks = backendDelta(pgBefore, await backendTicks(admin, name));
    const nodeTicks = run.pids.reduce((sum, pid, i) => sum + ticks(pid) - nodeBefore[i], 0);
    const sinkTicks = ticks(sink.child.pid) - sinkBefore;
    if (done.distinct < N / SUBSCRIBERS)
      throw new Error(`${contender.key}: ${done.distinct} of ${N / SUBSCRIBERS} events delivered`);
    const per = (t) => (t * TICK_US) / N;
    const node = per(nodeTicks) + producerUs / N;
    return {
      node,
      pg: per(pgTicks),
      sink: per(sinkTicks),
      all: node + per(pgTicks) + per(sinkTicks),
      rate: N / seconds,
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
        `round ${round + 1}/${ROUNDS}, ${contender.key}: ${fmt(r.all)} µs/delivery (node ${fmt(r.node)}, PostgreSQL ${fmt(r.pg)}, sink ${fmt(r.sink)}), ${fmt(r.rate)} deliveries/s`,
      );
    }
  }
} finally {
  await admin.end();
  await stop(sinkProcess);
}

// Ratios are to the bulk pg-boss peer; with several subscribers (no peer), to the baseline build when there is one.
const baseKey = results.get("boss-bulk").length > 0 ? "boss-bulk" : "base-post";
const base = results.get(baseKey) ?? [];
const baseLabel = baseKey === "boss-bulk" ? "pg-boss bulk" : "the baseline build";
const rows = CONTENDERS.map((c) => {
  const runs = results.get(c.key);
  if (unavailable.has(c.key) || runs.length === 0)
    return `| ${c.name} | not available: ${unavailable.get(c.key) ?? "no run"} | | | | | | |`;
  const m = (f) => median(runs.map(f));
  const ratio = (f) =>
    base.length === runs.length ? `${median(runs.map((r, i) => f(r) / f(base[i]))).toFixed(2)}×` : "—";
  const cpuRatio = ratio((r) => r.all);
  const rateRatio = ratio((r) => r.rate);
  return `| ${c.name} | ${fmt(m((r) => r.all))} | ${fmt(m((r) => r.node))} | ${fmt(m((r) => r.pg))} | ${fmt(m((r) => r.sink))} | ${fmt(m((r) => r.rate))} | ${cpuRatio} | ${rateRatio} |`;
});
console.log(
  [
    "",
    `${fmt(N)} deliveries after ${fmt(WARMUP)} of warm-up, ${ROUNDS} interleaved rounds, 64 in flight, ${SUBSCRIBERS === 1 ? "one subscriber" : `${SUBSCRIBERS} subscribers per event`}; Node ${process.version}, ${cpus().length} cores shared by PostgreSQL, the sink and the contenders`,
    "",
    `| contender | CPU µs/delivery | of which node (producer + sender) | PostgreSQL backends | sink | deliveries/s | CPU ÷ ${baseLabel} | rate ÷ ${baseLabel} |`,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n"),
);
