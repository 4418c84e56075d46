// Forwards per second of the receiver against deliveries per second of the sender, to the same sink in the same run
// (issue 46: forwards/s ≥ the sender's deliveries/s on the same machine).
//   pnpm build && pnpm --filter @plant-store/receiver bench:forward-rate     (BENCH_EVENTS, default 20000;
//                                                                            BENCH_ROUNDS, default 3)
// Each contender is its built bin, started as a user starts it (its defaults: 64 in flight, 16 per target; SQLite
// file; one JSON line per attempt into /dev/null), on a database filled beforehand through @plant-store/store: the
// sender's with one subscription and BENCH_EVENTS published messages; the receiver's with one destination, paused
// while BENCH_EVENTS events are recorded in its inbox (each its pending forward), then resumed. Both send to one sink
// (apps/sender/bench/sink.mjs, its own process, 200 to everything). The rate is taken at the sink, from its first
// arrival to its last, so start-up and shutdown fall outside; CPU per unit is the contender's process (user + system,
// /proc) between the sink's first and last arrival. Rounds alternate which contender goes first; the ratio is the
// median of each round's receiver ÷ sender.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { openStore } from "@plant-store/store";

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const token = createToken();
const secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-forward-rate-"));
const body = (i) => Buffer.from(`{"id":${i},"name":"Fern ${i}","tag":"bench"}`);

// Whatever ends the run, no child is left running and no file is left behind.
const children = new Set();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Spawns node with `args`; with `port`, resolves once its first stdout line (JSON) names the port it listens on. */
function start(args, { env = {}, port = false } = {}) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", port ? "pipe" : "ignore", "inherit"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  if (!port) return { child };
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code} before listening`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (out.includes("\n")) resolve({ child, port: JSON.parse(line).port });
    });
  });
}

const sink = await start([here("../../sender/bench/sink.mjs")], { port: true });
const sinkUrl = `http://127.0.0.1:${sink.port}`;
const ask = async (path) => (await fetch(`${sinkUrl}${path}`)).json();

/** CPU seconds a child process used so far (user + system, from /proc; Linux only, else null). */
function childCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The sender's database: one subscription to the sink, N messages published (in batches of 1,000). */
async function fillSender(db) {
  const store = await openStore(db);
  await store.subscriptions.create({ url: `${sinkUrl}/hooks`, token, secrets: [secret] });
  for (let i = 0; i < N; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(N, i + 1000); k++) batch.push({ event: body(k) });
    await store.outbox.publishMany(batch);
  }
  await store.close();
}

/** The receiver's database: one destination, paused while N events are recorded (with their forwards), resumed. */
async function fillReceiver(db) {
  const store = await openStore(db);
  const destination = await store.destinations.create({
    name: "sink",
    url: `${sinkUrl}/hooks`,
    paused: true,
  });
  for (let i = 0; i < N; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(N, i + 1000); k++) {
      batch.push(store.inbox.record({ webhookId: `msg_bench_${k}`, body: body(k) }));
    }
    await Promise.all(batch);
  }
  if ((await store.destinations.stats())[0]?.depth !== N) throw new Error("the forwards were not all stored");
  await store.destinations.resume(destination.id);
  await store.close();
}

const CONTENDERS = {
  sender: {
    fill: fillSender,
    args: (db) => [
      here("../../sender/dist/bin.js"),
      ...["--db", db, "--port", "0", "--admin-token", token, "--allow-networks", "127.0.0.0/8"],
    ],
  },
  receiver: {
    fill: fillReceiver,
    args: (db) => [
      here("../dist/bin.js"),
      ...["--db", db, "--port", "0", "--token", token, "--allow-networks", "127.0.0.0/8"],
    ],
  },
};

/** One contender's run: filled, started, timed at the sink from its first arrival to its N-th, stopped. */
async function run(name, round) {
  const contender = CONTENDERS[name];
  const db = join(dir, `${name}-${round}.db`);
  await contender.fill(db);
  await ask("/_reset");
  const { child } = start(contender.args(db));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await ask("/_wait?n=1");
    const cpuFirst = childCpu(child.pid);
    const counts = await ask(`/_wait?n=${N}`);
    const cpuLast = childCpu(child.pid);
    if (counts.distinct !== N) throw new Error(`${name}: ${counts.distinct} distinct ids for ${N} sent`);
    const rate = (N - 1) / ((counts.last - counts.first) / 1000);
    const cpuUs = cpuFirst === null || cpuLast === null ? null : ((cpuLast - cpuFirst) * 1e6) / (N - 1);
    return { rate, cpuUs, received: counts.received };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const rounds = [];
for (let round = 1; round <= ROUNDS; round++) {
  const order = round % 2 === 1 ? ["sender", "receiver"] : ["receiver", "sender"];
  const result = {};
  for (const name of order) result[name] = await run(name, round);
  rounds.push(result);
  console.error(
    `round ${round}/${ROUNDS}: sender ${Math.round(result.sender.rate)} deliveries/s, receiver ${Math.round(result.receiver.rate)} forwards/s, ${(result.receiver.rate / result.sender.rate).toFixed(2)}×`,
  );
}
sink.child.kill();

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const cpuOf = (name) =>
  rounds.every((r) => r[name].cpuUs !== null)
    ? `${median(rounds.map((r) => r[name].cpuUs)).toFixed(1)} µs`
    : "n/a";
const sent = (name) => rounds.map((r) => r[name].received - N).reduce((a, b) => a + b, 0);
const ratio = median(rounds.map((r) => r.receiver.rate / r.sender.rate));
const table = [
  "| contender | per second (median) | CPU per unit, its process | requests sent twice (all rounds) |",
  "| --- | ---: | ---: | ---: |",
  `| plant-store-sender: deliveries | ${fmt(median(rounds.map((r) => r.sender.rate)))} | ${cpuOf("sender")} | ${sent("sender")} |`,
  `| plant-store-receiver: forwards | ${fmt(median(rounds.map((r) => r.receiver.rate)))} | ${cpuOf("receiver")} | ${sent("receiver")} |`,
  `| receiver ÷ sender (median of the rounds' ratios) | ${ratio.toFixed(2)}× | | |`,
].join("\n");
console.log(table);

const HEADING = "\n## Forwards per second (issue 46)\n";
const section = `${HEADING}
Command: \`pnpm build && pnpm --filter @plant-store/receiver bench:forward-rate\` (\`bench/forward-rate.mjs\`;
\`BENCH_EVENTS\`, here ${N}; \`BENCH_ROUNDS\`, here ${ROUNDS}). Each contender is its built bin with its defaults (64
in flight, 16 per target, a SQLite file, one log line per attempt into /dev/null), on a database filled beforehand:
the sender's with one subscription and ${N} published messages, the receiver's with one destination, paused while
${N} events were recorded in its inbox (each its pending forward: the claim creates its rows, decision 45), then resumed. Both send to the same sink
(\`apps/sender/bench/sink.mjs\`, its own process); the rate is the sink's, from its first arrival to its last, so
start-up falls outside, and CPU per unit is the contender's process between those two arrivals. Rounds alternate
which contender goes first; the ratio is the median of each round's. Node ${process.version}, ${cpus().length} cores,
${new Date().toISOString().slice(0, 10)}.

${table}

Issue 46's bar: forwards per second ≥ the sender's deliveries per second on the same machine (ratio ≥ 1.00×).
`;
// The section is replaced in place (bench/run.mjs writes the file's head and carries its sections over).
const file = here("../BENCH.md");
const previous = existsSync(file) ? readFileSync(file, "utf8") : "";
const at = previous.indexOf(HEADING);
if (at === -1) writeFileSync(file, `${previous.trimEnd()}\n${section}`);
else {
  const next = previous.indexOf("\n## ", at + HEADING.length);
  writeFileSync(file, `${previous.slice(0, at)}${section}${next === -1 ? "" : previous.slice(next)}`);
}
