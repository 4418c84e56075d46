// The outside harness of issue 48, the second mode beside callgrind.mjs, deliberately plain: each server is the
// built bin started as a user starts it (V8's default flags, the default log level, stdout and stderr piped to this
// process, which drains them) under `valgrind --tool=callgrind`; the load is a separate, uninstrumented process
// (outside-load.mjs: raw keep-alive sockets, one request in flight per connection, each signed just before it is
// sent). Two servers per target run side by side, one serving W+N requests and one W+3N; per request =
// (total(W+3N) − total(W+N)) / 2N from callgrind's totals, all threads.
//   pnpm build && pnpm --filter @plant-store/receiver bench:outside                (needs valgrind)
// Each factor can be changed alone:
//   OUTSIDE_TARGETS=peer,sqlite   peer | sqlite | memory
//   OUTSIDE_CONNECTIONS=8,50      OUTSIDE_WARM=15000   OUTSIDE_UNITS=2000
//   OUTSIDE_STDOUT=pipe           pipe (drained by this process) | file | null (/dev/null) | tty (a pseudo-terminal,
//                                 drained by ../../../bench/pty-run.py into this process's pipe)
//   OUTSIDE_STDERR=pipe           pipe (drained by this process) | file (stderr.log beside the callgrind files)
//   OUTSIDE_TRACE=                opt and/or gc (comma-separated). opt: V8's --trace-opt --trace-deopt
//                                 --trace-file-names into v8-trace.txt beside the callgrind files
//                                 (--redirect-code-traces-to), each line stamped with the lines that had reached the
//                                 pipe when it was seen (v8-trace.txt.stamped); gc: --trace-gc. What V8 prints on
//                                 stdout anyway (gc's lines, the reasons of "marking dependent code") is kept apart,
//                                 stamped, in v8-trace.txt.stdout. Keep them with BENCH_KEEP=1.
//   OUTSIDE_LOG_LEVEL=            passed as --log-level when set (default: the bin's default)
//   OUTSIDE_NODE_FLAGS=           node flags (default: none, V8's defaults)
//   OUTSIDE_PAIRING=side-by-side  side-by-side | sequential (the small run, then the large one)
//   OUTSIDE_CLIENT=raw            raw (outside-load.mjs) | http (drive.mjs: node:http's Agent)
//   OUTSIDE_WRAP=callgrind        callgrind | strace (native, `strace -f -c`: syscalls per request, no count)
//   OUTSIDE_PEER=                 the peer's count from an earlier run, for the ratio when the peer is left out
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { kilo } from "../../../bench/callgrind.mjs";
import { freePort, instructionsIn, startCounted, stopCounted, syscallsIn } from "../../../bench/outside.mjs";

const env = (name, fallback) => process.env[`OUTSIDE_${name}`] ?? fallback;
const settings = {
  targets: env("TARGETS", "peer,sqlite").split(","),
  connections: env("CONNECTIONS", "8,50").split(",").map(Number),
  warm: Number(env("WARM", 15000)),
  units: Number(env("UNITS", 2000)),
  stdout: env("STDOUT", "pipe"),
  stderr: env("STDERR", "pipe"),
  trace: env("TRACE", ""),
  logLevel: env("LOG_LEVEL", ""),
  nodeFlags: env("NODE_FLAGS", "").split(" ").filter(Boolean),
  pairing: env("PAIRING", "side-by-side"),
  client: env("CLIENT", "raw"),
  wrap: env("WRAP", "callgrind"),
};
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const token = createToken();
const secret = createSecret();

/** The command line of `target` listening on `port`, its database (if any) in `dir`. */
function serverArgs(target, port, dir) {
  if (target === "peer") return [here("fastify-peer.mjs"), token, secret, "zod", String(port)];
  const db = target === "memory" ? ":memory:" : join(dir, "r.db");
  const level = settings.logLevel ? ["--log-level", settings.logLevel] : [];
  const flags = ["--port", String(port), "--token", token, "--secret", secret];
  return [here("../dist/bin.js"), ...flags, "--db", db, "--tolerance", "3600", ...level];
}

const TRACE_FILE = "v8-trace.txt";

/**
 * V8's tracing (OUTSIDE_TRACE, comma-separated): `opt`, what it optimizes and deoptimizes, into a file in `dir`;
 * `gc`, each collection (V8 prints it on stdout: the harness keeps it with the other lines that are not the log's).
 */
function traceFlags(dir) {
  const kinds = settings.trace.split(",").filter(Boolean);
  const unknown = kinds.filter((kind) => kind !== "opt" && kind !== "gc");
  if (unknown.length > 0) throw new Error(`OUTSIDE_TRACE: opt and/or gc, not ${unknown.join(",")}`);
  const opt = ["--trace-opt", "--trace-deopt", "--trace-file-names", "--redirect-code-traces"];
  return [
    ...(kinds.includes("opt") ? [...opt, `--redirect-code-traces-to=${join(dir, TRACE_FILE)}`] : []),
    ...(kinds.includes("gc") ? ["--trace-gc"] : []),
  ];
}

/** Runs the load process (`client`: raw or http) against `port` for `total` requests. */
function load(port, total, connections, client) {
  const args =
    client === "http"
      ? [
          here("drive.mjs"),
          `http://127.0.0.1:${port}`,
          String(total),
          "0",
          String(connections),
          token,
          secret,
        ]
      : [here("outside-load.mjs"), String(port), String(total), String(connections), token, secret];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the load ended with ${code}`))));
  });
}

/** One server serving `total` requests, then SIGTERM; resolves with its record once it has exited. */
async function serve({ target, total, connections, dir }) {
  const port = await freePort();
  const { stdout, stderr, wrap, nodeFlags } = settings;
  const args = [...nodeFlags, ...traceFlags(dir), ...serverArgs(target, port, dir)];
  const stamp = settings.trace ? TRACE_FILE : undefined;
  const server = startCounted({ args, stdout, stderr, dir, wrap, stamp });
  try {
    // The http client does not retry a refused connection: the raw one waits until the port answers.
    if (settings.client === "http") await load(port, 0, 1, "raw");
    await load(port, total, connections, settings.client);
  } finally {
    await stopCounted(server, target);
  }
  return { dir, lines: server.lines, total };
}

/** One pair for `target` at `connections`: the W+N and W+3N servers, side by side or one after the other. */
async function pair(target, connections) {
  const runs = [settings.warm + settings.units, settings.warm + 3 * settings.units].map((total) => ({
    target,
    total,
    connections,
    dir: mkdtempSync(join(tmpdir(), `plant-store-outside-${target}-`)),
  }));
  try {
    const [small, large] =
      settings.pairing === "sequential"
        ? [await serve(runs[0]), await serve(runs[1])]
        : await Promise.all(runs.map(serve));
    const lines = `log lines through the pipe: ${small.lines}, ${large.lines}`;
    if (settings.wrap === "strace") return `${syscallsIn(large.dir, large.total)} | ${lines}`;
    const perUnit = (instructionsIn(large.dir) - instructionsIn(small.dir)) / (2 * settings.units);
    return { perUnit, lines };
  } finally {
    // BENCH_KEEP=1 keeps the callgrind files: `node ../../bench/callgrind-diff.mjs <W+N file> <W+3N file> N --grouped`.
    if (process.env.BENCH_KEEP)
      console.error(`callgrind files kept in ${runs.map((run) => run.dir).join(" (W+N), ")} (W+3N)`);
    else for (const run of runs) rmSync(run.dir, { recursive: true, force: true });
  }
}

const { targets: _, connections: __, ...factors } = settings;
console.log(`settings: ${JSON.stringify(factors)}`);
for (const connections of settings.connections) {
  // OUTSIDE_PEER: the peer's count of an earlier run, for the ratio when this run leaves the peer out.
  const counts = { peer: Number(env("PEER", 0)) || undefined };
  for (const target of settings.targets) {
    const result = await pair(target, connections);
    if (typeof result === "string") {
      console.log(`| ${target} | ${connections} | ${result} |`);
      continue;
    }
    counts[target] = result.perUnit;
    const ratio = counts.peer ? `${(result.perUnit / counts.peer).toFixed(2)}×` : "";
    console.log(`| ${target} | ${connections} | ${kilo(result.perUnit)} | ${ratio} | ${result.lines} |`);
  }
}
