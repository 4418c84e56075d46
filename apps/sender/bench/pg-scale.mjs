// Throughput of 1, 2 and 4 sender processes on one PostgreSQL outbox (timed, information):
//   pnpm build && PLANT_STORE_TEST_PG_URL=postgres://… pnpm --filter @plant-store/sender bench:pg-scale
// BENCH_EVENTS (default 20000) events are published into a fresh database (bench/fill.mjs, not timed), then k
// processes of the built bin (64 in flight each, 64 per subscription, log level info into /dev/null) drain it to the
// sink in another process. Deliveries/s is counted at the sink, from the first delivery to the last; every
// delivery must arrive (distinct webhook-ids). Rounds (BENCH_ROUNDS, default 3) interleave 1, 2 and 4 processes;
// figures are medians. Prints a Markdown table.
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { BENCH_TOKEN, fill } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROCESSES = (process.env.BENCH_PROCESSES ?? "1,2,4").split(",").map(Number);
// The bench's own database (dropped and created for every round): PLANT_STORE_BENCH_PG_URL as given, or
// plant_store_bench on PLANT_STORE_TEST_PG_URL's server.
const testPg = process.env.PLANT_STORE_TEST_PG_URL;
const db =
  process.env.PLANT_STORE_BENCH_PG_URL ??
  (testPg && Object.assign(new URL(testPg), { pathname: "/plant_store_bench" }).href);
if (!db) throw new Error("Set PLANT_STORE_TEST_PG_URL (or PLANT_STORE_BENCH_PG_URL) to a PostgreSQL server.");

function call(url) {
  return new Promise((resolve, reject) => {
    httpRequest(url, { agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve(JSON.parse(text)));
    })
      .on("error", reject)
      .end();
  });
}

function startSink() {
  const child = spawn(process.execPath, [here("./sink.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    child.stdout.once("data", (chunk) => {
      const { port } = JSON.parse(String(chunk).split("\n")[0]);
      resolve({ child, base: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/plant/webhook` });
    });
  });
}

function startSender() {
  const args = [here("../dist/bin.js"), "--db", db, "--admin-token", BENCH_TOKEN, "--port", "0"];
  args.push("--allow-networks", "127.0.0.0/8", "--concurrency", "64", "--per-subscription", "64");
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

const sink = await startSink();
const runs = new Map(PROCESSES.map((k) => [k, []]));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const k of PROCESSES) {
      await fill(db, sink.url, EVENTS);
      await call(`${sink.base}/_reset`);
      const senders = Array.from({ length: k }, startSender);
      const done = await call(`${sink.base}/_wait?n=${EVENTS}`);
      await Promise.all(senders.map((s) => s.stop()));
      const after = await call(`${sink.base}/_count`);
      if (after.distinct !== EVENTS)
        throw new Error(`${k} processes: ${after.distinct} of ${EVENTS} delivered`);
      const rate = (done.received - 1) / ((done.last - done.first) / 1000);
      runs.get(k).push({ rate, duplicates: after.received - after.distinct });
      console.log(
        `round ${round}/${ROUNDS}, ${k} process(es): ${Math.round(rate)} deliveries/s, ${after.received - after.distinct} sent twice`,
      );
    }
  }
} finally {
  sink.child.kill();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const one = median(runs.get(PROCESSES[0]).map((r) => r.rate));
const rows = PROCESSES.map((k) => {
  const rate = median(runs.get(k).map((r) => r.rate));
  const twice = runs.get(k).reduce((n, r) => n + r.duplicates, 0);
  return `| ${k} | ${Math.round(rate).toLocaleString("en-US")} | ${(rate / one).toFixed(2)}× | ${twice} |`;
});
console.log(
  [
    `${EVENTS.toLocaleString("en-US")} events, ${ROUNDS} rounds, Node ${process.version}, ${cpus().length} cores shared by PostgreSQL, the sink and the senders`,
    "",
    "| sender processes | deliveries/s (median) | ÷ one process | sent twice (all rounds) |",
    "| ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n"),
);
