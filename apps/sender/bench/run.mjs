// Sender benchmark, one run (ratios against a baseline measured in the same run):
//   pnpm build && pnpm --filter @plant-store/sender bench       (BENCH_EVENTS, default 20000; BENCH_ROUNDS, default 3)
// 1. throughput: deliveries/s from a durable SQLite outbox (WAL) to a bare sink in another process,
//    vs a raw undici loop posting the same bodies at the same concurrency;
// 2. latency: enqueue → delivered at 100 events/s for 10 s (p50, p99).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ATTEMPT_LINE_KEYS, createLineBatcher, createLineWriter, createLogger } from "@plant-store/app-kit";
import { createSecret, createToken, parseSecret } from "@plant-store/core";
import { Agent, request } from "undici";
// Internal to core (not exported): the HMAC that `deliver` signs with, for the signed loop below.
import { hmacSha256Base64Sync } from "../../../packages/core/dist/crypto/node.js";
import { createSender } from "../dist/index.js";
import { body, CONCURRENCY, prepareBookkeeping } from "./bookkeeping.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const token = createToken();
const secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-sender-bench-"));
// The sender logs one line per attempt, as in production (the bin's logger), into /dev/null: its CPU is counted,
// no reader process competes for the cores.
const logger = createLogger("plant-store-sender", "info", createLineBatcher(openSync("/dev/null", "w")));

// Whatever ends the run (its end, an error, an unhandled rejection), no sink is left running and no file is left behind.
const sinks = new Set();
process.once("exit", () => {
  for (const child of sinks) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function startSink(log = false) {
  const child = spawn(process.execPath, [here("./sink.mjs"), ...(log ? ["log"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  sinks.add(child);
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

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
/** This process's CPU per unit since `since`, in µs: user + system, and the system (kernel) part alone. */
const cpuPer = (since, n) => {
  const used = process.cpuUsage(since);
  return { all: (used.user + used.system) / n, system: used.system / n };
};

// 1a. raw undici loop: `send(sink, i, agent)` posts the i-th body, `CONCURRENCY` of them in flight.
const rawSend = async (sink, i, agent) => {
  const res = await request(sink.url, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body(i),
  });
  await res.body.dump();
};
const rawLoop = (sink, n = N) => clientLoop(sink, n, rawSend);

// 1a'. the raw loop with what the sender's sending thread does for every attempt and no correct sender can skip, by
// the sender's own means: the Standard Webhooks headers signed with core's HMAC (the function `deliver` signs with,
// the key decoded once and its pads kept) and the worker's attempt line (app-kit's line writer, the same fields). No
// store, no timeout timer, no SSRF check, no metrics.
const signingKey = parseSecret(secret);
const attemptLine = createLineWriter(logger, "info", "attempt", ATTEMPT_LINE_KEYS);
const signedSend = async (sink, i, agent) => {
  const id = `msg_${i}`;
  const payload = body(i);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const sent = performance.now();
  const res = await request(sink.url, {
    method: "POST",
    dispatcher: agent,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${hmacSha256Base64Sync(signingKey, `${id}.${timestamp}.`, payload)}`,
    },
    body: payload,
  });
  await res.body.dump();
  attemptLine({
    messageId: id,
    deliveryId: i,
    subscriptionId: "sub_bench",
    attempt: 1,
    outcome: "delivered",
    status: res.statusCode,
    ms: performance.now() - sent,
    error: undefined,
  });
};
const signedLoop = (sink, n = N) => clientLoop(sink, n, signedSend);

async function clientLoop(sink, n, send) {
  const agent = new Agent({ connections: CONCURRENCY });
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await send(sink, next++, agent);
    }),
  );
  const rate = n / ((performance.now() - t0) / 1000);
  const { all: cpuUs, system: systemUs } = cpuPer(cpu, n);
  await agent.close();
  return { rate, cpuUs, systemUs };
}

// 1b. the sender: the outbox is filled first (worker off), then the worker drains it.
async function senderDrain(sink, round, n = N) {
  const db = join(dir, `sender-${round}.db`);
  const fill = await createSender({ adminTokens: [token], store: db, worker: false });
  await fill.store.subscriptions.create({ url: sink.url, token, secrets: [secret] });
  for (let i = 0; i < n; i++) await fill.store.outbox.publish(body(i));
  await fill.close();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const sender = await createSender({
    adminTokens: [token],
    store: db,
    allowNetworks: ["127.0.0.0/8"],
    concurrency: CONCURRENCY,
    perSubscription: CONCURRENCY,
    logger,
  });
  for (;;) {
    const stats = await sender.store.outbox.stats();
    if (stats.delivered >= n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const rate = n / ((performance.now() - t0) / 1000);
  const { all: cpuUs, system: systemUs } = cpuPer(cpu, n);
  await sender.close();
  return { rate, cpuUs, systemUs };
}

// 1c. the outbox's bookkeeping alone, no HTTP (bookkeeping.mjs). Together with the raw loop this bounds the sender
// on one thread: a delivery costs at least one of each, one after the other.
async function bookkeepingOnly(round, n = N) {
  const books = await prepareBookkeeping(dir, `bookkeeping-${round}`, n);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await books.run();
  const rate = n / ((performance.now() - t0) / 1000);
  const { all: cpuUs, system: systemUs } = cpuPer(cpu, n);
  await books.close();
  return { rate, cpuUs, systemUs };
}

// 1d. the bound of a sender that split a delivery's two halves over two threads: the raw loop on this thread while a
// worker thread runs the bookkeeping of as many deliveries on its own outbox, both started together. A pipeline of
// the two with no other work per delivery (no messages between the threads, and with `signed` false no signing and
// no log line either) could deliver at most n in the time the slower of them took, on the same cores as the sink.
async function twoThreads(sink, round, n = N, { signed = false } = {}) {
  const worker = new Worker(here("./bookkeeping-worker.mjs"), {
    workerData: { dir, name: `threads-${round}${signed ? "-signed" : ""}`, n },
  });
  try {
    const failed = new Promise((_, reject) => {
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`The bookkeeping worker stopped (exit code ${code}).`)));
    });
    failed.catch(() => {}); // raced below; it also settles when the worker is terminated after its answer
    const answer = () => Promise.race([new Promise((resolve) => worker.once("message", resolve)), failed]);
    await answer(); // "ready": warmed up, and its outbox is filled
    const t0 = performance.now();
    worker.postMessage("go");
    const finished = answer();
    finished.catch(() => {}); // awaited after the raw loop
    const raw = await (signed ? signedLoop : rawLoop)(sink, n);
    const rawMs = performance.now() - t0;
    const { ms: booksMs } = await finished;
    return {
      rate: n / (Math.max(rawMs, booksMs) / 1000),
      rawRate: raw.rate,
      booksRate: n / (booksMs / 1000),
    };
  } finally {
    await worker.terminate();
  }
}

/** CPU seconds a child process used so far (user + system, from /proc; Linux only, else null). */
function childCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

// Interleaved rounds: each round measures the raw loop, the bookkeeping alone, the two-thread bound without and with
// signing and logging, and then the sender; figures are medians over rounds and the ratio is the median of each
// round's own ratio (the machine's speed drifts between rounds, not within one).
const rounds = [];
let sink = await startSink();
// Warm-up, not counted: without it the first round's raw loop runs undici cold at about half its warm rate.
await rawLoop(sink, Math.min(N, 5000));
await signedLoop(sink, Math.min(N, 5000));
await senderDrain(sink, "warm-up", Math.min(N, 5000));
for (let round = 1; round <= ROUNDS; round++) {
  const sinkBefore = childCpu(sink.child.pid);
  const raw = await rawLoop(sink);
  const sinkAfter = childCpu(sink.child.pid);
  const sinkUs = sinkBefore === null || sinkAfter === null ? null : ((sinkAfter - sinkBefore) * 1e6) / N;
  const books = await bookkeepingOnly(round);
  const threads = await twoThreads(sink, round);
  const signedThreads = await twoThreads(sink, round, N, { signed: true });
  const ours = await senderDrain(sink, round);
  // Both halves of a delivery, one after the other on one thread: 1 / (1/raw + 1/bookkeeping).
  const bound = 1 / (1 / raw.rate + 1 / books.rate);
  rounds.push({
    raw,
    books,
    ours,
    bound,
    threads,
    signedThreads,
    sinkUs,
    ratio: ours.rate / raw.rate,
    boundRatio: bound / raw.rate,
    threadsRatio: threads.rate / raw.rate,
    signedThreadsRatio: signedThreads.rate / raw.rate,
  });
  console.log(
    `round ${round}/${ROUNDS}: raw ${Math.round(raw.rate)} req/s (${raw.cpuUs.toFixed(1)} µs CPU/req, sink ${sinkUs === null ? "n/a" : sinkUs.toFixed(1)} µs), ` +
      `bookkeeping alone ${Math.round(books.rate)}/s (${books.cpuUs.toFixed(1)} µs), bound ${Math.round(bound)}/s, ` +
      `two threads ${Math.round(threads.rate)}/s (raw ${Math.round(threads.rawRate)}, bookkeeping ${Math.round(threads.booksRate)}), ` +
      `signed and logged ${Math.round(signedThreads.rate)}/s (raw ${Math.round(signedThreads.rawRate)}, bookkeeping ${Math.round(signedThreads.booksRate)}), ` +
      `sender ${Math.round(ours.rate)} deliveries/s (${ours.cpuUs.toFixed(1)} µs CPU/delivery), ${(ours.rate / raw.rate).toFixed(2)}×`,
  );
}
sink.child.kill();
const rawRate = median(rounds.map((r) => r.raw.rate));
const senderRate = median(rounds.map((r) => r.ours.rate));
const rawCpu = median(rounds.map((r) => r.raw.cpuUs));
const senderCpu = median(rounds.map((r) => r.ours.cpuUs));
const rawSystem = median(rounds.map((r) => r.raw.systemUs));
const senderSystem = median(rounds.map((r) => r.ours.systemUs));
const booksSystem = median(rounds.map((r) => r.books.systemUs));
const ratio = median(rounds.map((r) => r.ratio));
const booksRate = median(rounds.map((r) => r.books.rate));
const booksCpu = median(rounds.map((r) => r.books.cpuUs));
const bound = median(rounds.map((r) => r.bound));
const boundRatio = median(rounds.map((r) => r.boundRatio));
const ofBound = median(rounds.map((r) => r.ours.rate / r.bound));
const threadsRate = median(rounds.map((r) => r.threads.rate));
const threadsRatio = median(rounds.map((r) => r.threadsRatio));
const signedThreadsRate = median(rounds.map((r) => r.signedThreads.rate));
const signedThreadsRatio = median(rounds.map((r) => r.signedThreadsRatio));
const sinkUs = rounds.some((r) => r.sinkUs === null) ? null : median(rounds.map((r) => r.sinkUs));

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
sink.child.kill(); // its open pipe would keep this process alive; the exit handler removes the files
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);

const table = [
  "| measure | value |",
  "| --- | ---: |",
  `| raw undici loop, ${CONCURRENCY} in flight (baseline) | ${Math.round(rawRate).toLocaleString("en-US")} req/s |`,
  `| sender from a durable SQLite outbox, ${CONCURRENCY} in flight | ${Math.round(senderRate).toLocaleString("en-US")} deliveries/s |`,
  `| sender ÷ raw loop (median of per-round ratios) | ${ratio.toFixed(2)}× |`,
  `| outbox bookkeeping alone, no HTTP (claim + attempt + outcome) | ${Math.round(booksRate).toLocaleString("en-US")} deliveries/s |`,
  `| bound on one thread: raw request + bookkeeping, one after the other | ${Math.round(bound).toLocaleString("en-US")} deliveries/s (${boundRatio.toFixed(2)}× raw) |`,
  `| sender ÷ that bound | ${ofBound.toFixed(2)}× |`,
  `| bound on two threads: the raw loop and the bookkeeping of as many deliveries at once, the slower's time | ${Math.round(threadsRate).toLocaleString("en-US")} deliveries/s (${threadsRatio.toFixed(2)}× raw) |`,
  `| the same, each request also signed and logged as the sender does it | ${Math.round(signedThreadsRate).toLocaleString("en-US")} deliveries/s (${signedThreadsRatio.toFixed(2)}× raw) |`,
  `| client CPU per request: raw loop (of which the kernel) | ${rawCpu.toFixed(1)} µs (${rawSystem.toFixed(1)} µs) |`,
  ...(sinkUs === null ? [] : [`| the sink's CPU per request (raw loop) | ${sinkUs.toFixed(1)} µs |`]),
  `| client CPU per delivery: sender (claim, sign, send, record) (of which the kernel) | ${senderCpu.toFixed(1)} µs (${senderSystem.toFixed(1)} µs) |`,
  `| CPU per delivery: bookkeeping alone (of which the kernel) | ${booksCpu.toFixed(1)} µs (${booksSystem.toFixed(1)} µs) |`,
  `| enqueue → delivered at 100 events/s, p50 | ${pct(0.5)} ms |`,
  `| enqueue → delivered at 100 events/s, p99 | ${pct(0.99)} ms |`,
].join("\n");
console.log(table);
// This run owns BENCH.md's first part, up to its first "## " section; the sections after it (other benches' figures,
// kept by hand) are carried over as they are.
const bench = here("../BENCH.md");
const previous = existsSync(bench) ? readFileSync(bench, "utf8") : "";
const kept = previous.indexOf("\n## ") >= 0 ? previous.slice(previous.indexOf("\n## ") + 1) : "";
writeFileSync(
  bench,
  `# plant-store-sender benchmark

Command: \`pnpm build && pnpm --filter @plant-store/sender bench\` (\`BENCH_EVENTS\`, default 20,000;
\`BENCH_ROUNDS\`, default 3). The sink is a bare node:http server in its own process; the raw loop posts the same
bodies with undici at the same concurrency. After an uncounted warm-up (5,000 requests of the raw loop, 5,000 of
the signed loop, 5,000 deliveries), each round runs the raw loop, the outbox's bookkeeping alone, the two two-thread
bounds (below) and then the sender; figures are medians over the rounds (${ROUNDS} here), the ratio is the median of
each round's own ratio, and CPU is the benchmark process's user + system time (the sender runs in it) per request or delivery. The
sender's outbox is SQLite in WAL mode (publishes commit with \`synchronous=FULL\`; claims and outcomes with
\`synchronous=NORMAL\`, crash-safe); each delivery is claimed with a lease, signed (HMAC-SHA256), checked by the
SSRF guard, sent with undici's \`request\`, its attempt and outcome are recorded, and one JSON log line is written
per attempt (app-kit's logger, into /dev/null). Node ${process.version},
${cpus().length} cores shared by the sink, the sender and SQLite, ${new Date().toISOString().slice(0, 10)}.

${table}

Goals: issue 6, ≥ 5,000 deliveries/s, ≥ 0.7× the raw loop, p50 ≤ 5 ms; issue 23, ≥ 0.6× the raw loop, p99 ≤ 10 ms.

What bounds the ratio, measured in the same run: the outbox's bookkeeping alone (a claim with a lease, an attempt
and an outcome per delivery, in SQLite, with no HTTP at all) and the raw request are each a large share of a
delivery, and the sender does both on one thread. One after the other they allow the "bound on one thread" row; the
rest of our cost per delivery is signing, the SSRF guard, the worker's own bookkeeping, the log line and the
metrics. Split over two threads (the raw loop here, the bookkeeping of as many deliveries on a worker thread, started
together), they could at best deliver at the "bound on two threads" row: they share the machine's cores with the
sink. The row after it adds to each raw request what the sender's sending thread does for every attempt and no
correct sender can skip, by the sender's own means: the Standard Webhooks signature (core's HMAC, the key's pads
kept) and the worker's attempt line (app-kit's line writer). It bounds a sender that keeps signing and logging on
the thread that sends and its bookkeeping on another, before the messages between the threads, the request's
timeout, the SSRF check and the metrics. Where the bookkeeping's cost comes from is in git's history of docs/decisions.md.
${kept ? `\n${kept}` : ""}`,
);
