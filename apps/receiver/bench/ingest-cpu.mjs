// CPU time per accepted event of each server, natively (no valgrind): the quick cross-check of bench:callgrind's
// instruction counts when valgrind runs too slowly on a busy machine. Each target serves W+N and then W+3N signed
// requests from drive.mjs (its own process, 8 connections); a figure is the difference of the server process's user
// time (/proc, every thread) between the two runs over 2N, so start-up and warm-up cancel out. Rounds
// interleave the targets; figures are medians, "× peer" the median of each round's ratio.
//   pnpm build && pnpm --filter @plant-store/receiver bench:ingest-cpu   (BENCH_WARM=15000, BENCH_UNITS=5000,
//                                                                         BENCH_ROUNDS=3, BENCH_TARGETS=fastify,sqlite,unmatched,forward)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { openStore } from "@plant-store/store";
import { COUNTED_NODE_FLAGS } from "../../../bench/callgrind.mjs";

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const WARM = Number(process.env.BENCH_WARM ?? 15000);
const UNITS = Number(process.env.BENCH_UNITS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const token = createToken();
const secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-ingest-cpu-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
const env = { PLANT_STORE_TOKEN: token, PLANT_STORE_WEBHOOK_SECRET: secret, PLANT_STORE_LOG_LEVEL: "info" };
const receiver = (db) => [here("../dist/bin.js"), "--port", "0", "--db", db];

/** Target → [its name, its args, a preparation of its database]. */
const TARGETS = {
  fastify: [
    "Fastify + `standardwebhooks` peer",
    () => [here("fastify-peer.mjs"), token, secret, "standardwebhooks"],
  ],
  sqlite: ["plant-store-receiver, SQLite file, no destination", () => receiver(join(dir, "r.db"))],
  unmatched: [
    "plant-store-receiver, SQLite file, one paused destination taking no type it serves (the forwards' transaction, no forward rows)",
    () => receiver(join(dir, "f.db")),
    async () => {
      const store = await openStore(join(dir, "f.db"));
      await store.destinations.create({
        name: "bench",
        url: "http://127.0.0.1:9/hooks",
        paused: true,
        eventTypes: ["plantSold"],
      });
      await store.close();
    },
  ],
  forward: [
    "plant-store-receiver, SQLite file, one paused destination",
    () => receiver(join(dir, "f.db")),
    async () => {
      const store = await openStore(join(dir, "f.db"));
      await store.destinations.create({ name: "bench", url: "http://127.0.0.1:9/hooks", paused: true });
      await store.close();
    },
  ],
};

/**
 * User-space CPU seconds of a process so far (all threads). The kernel's part (socket reads and writes, SQLite's
 * fsyncs) is left out, as callgrind leaves it out: on a machine whose disk and cores others share, it swamped the
 * figure (a first version counting user + system read 7.5× the peer for the SQLite receiver).
 */
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) / 100;
};

/** One run: a fresh database, the server started, `warm + units` requests driven, its CPU read, then stopped. */
async function run(target, units) {
  const [, args, prepare] = TARGETS[target];
  rmSync(join(dir, "r.db"), { force: true });
  rmSync(join(dir, "f.db"), { force: true });
  await prepare?.();
  const server = spawn(process.execPath, [...COUNTED_NODE_FLAGS, ...args()], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      createInterface({ input: server.stdout }).on("line", (line) => {
        try {
          const parsed = JSON.parse(line);
          const found = parsed.url ?? (parsed.port && `http://127.0.0.1:${parsed.port}`);
          if (found) resolve(found);
        } catch {}
      });
      server.once("exit", () => reject(new Error(`${target} exited before listening`)));
    });
    server.stdout.resume();
    const load = spawn(
      process.execPath,
      [here("drive.mjs"), url, String(units), String(WARM), "8", token, secret],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    const code = await new Promise((resolve) => load.once("exit", resolve));
    if (code !== 0) throw new Error(`the load ended with ${code}`);
    return cpuOf(server.pid);
  } finally {
    server.kill("SIGTERM");
    await exited;
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const only = process.env.BENCH_TARGETS?.split(",") ?? Object.keys(TARGETS);
const perRound = [];
for (let round = 1; round <= ROUNDS; round++) {
  const counts = {};
  for (const target of only) {
    const small = await run(target, UNITS);
    const large = await run(target, 3 * UNITS);
    counts[target] = ((large - small) * 1e6) / (2 * UNITS);
    console.error(`round ${round}: ${target} ${counts[target].toFixed(1)} µs user CPU/request`);
  }
  perRound.push(counts);
}
const rows = only.map((target) => {
  const us = median(perRound.map((c) => c[target]));
  const ratio = only.includes("fastify")
    ? `${median(perRound.map((c) => c[target] / c.fastify)).toFixed(2)}×`
    : "—";
  return `| ${TARGETS[target][0]} | ${us.toFixed(1)} | ${ratio} |`;
});
console.log(
  ["| target | µs user CPU/request (median) | × peer |", "| --- | ---: | ---: |", ...rows].join("\n"),
);
