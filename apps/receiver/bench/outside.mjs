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
//   OUTSIDE_STDOUT=pipe           pipe (drained by this process) | file | null (/dev/null)
//   OUTSIDE_LOG_LEVEL=            passed as --log-level when set (default: the bin's default)
//   OUTSIDE_NODE_FLAGS=           node flags (default: none, V8's defaults)
//   OUTSIDE_PAIRING=side-by-side  side-by-side | sequential (the small run, then the large one)
//   OUTSIDE_CLIENT=raw            raw (outside-load.mjs) | http (drive.mjs: node:http's Agent)
//   OUTSIDE_WRAP=callgrind        callgrind | strace (native, `strace -f -c`: syscalls per request, no count)
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { kilo, totalOf } from "../../../bench/callgrind.mjs";

const env = (name, fallback) => process.env[`OUTSIDE_${name}`] ?? fallback;
const settings = {
  targets: env("TARGETS", "peer,sqlite").split(","),
  connections: env("CONNECTIONS", "8,50").split(",").map(Number),
  warm: Number(env("WARM", 15000)),
  units: Number(env("UNITS", 2000)),
  stdout: env("STDOUT", "pipe"),
  logLevel: env("LOG_LEVEL", ""),
  nodeFlags: env("NODE_FLAGS", "").split(" ").filter(Boolean),
  pairing: env("PAIRING", "side-by-side"),
  client: env("CLIENT", "raw"),
  wrap: env("WRAP", "callgrind"),
};
const VALGRIND = ["--tool=callgrind", "--dump-instr=no", "--smc-check=all-non-file"];
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

/** A port free now, for the server to take. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Where the server's stdout goes: this process's pipe (drained), a file, or /dev/null. */
function stdoutFor(dir) {
  if (settings.stdout === "pipe") return "pipe";
  if (settings.stdout === "null") return "ignore";
  return openSync(join(dir, "stdout.log"), "w");
}

/** Starts one server under the wrapper; `lines` counts the log lines that reached the pipe. */
function startServer({ target, port, dir }) {
  const node = [process.execPath, ...settings.nodeFlags, ...serverArgs(target, port, dir)];
  const wrapped =
    settings.wrap === "strace"
      ? ["strace", "-f", "-c", "-o", join(dir, "strace.txt"), ...node]
      : ["valgrind", ...VALGRIND, `--callgrind-out-file=${join(dir, "callgrind.%p")}`, ...node];
  const out = stdoutFor(dir);
  const child = spawn(wrapped[0], wrapped.slice(1), { stdio: ["ignore", out, "pipe"] });
  if (typeof out === "number") closeSync(out);
  const server = { child, lines: 0, stderr: "" };
  child.stdout?.on("data", (chunk) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) server.lines++;
  });
  child.stderr.on("data", (chunk) => {
    server.stderr = (server.stderr + chunk).slice(-4000);
  });
  server.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return server;
}

/** Runs the load process against `port` for `total` requests. */
function load(port, total, connections) {
  const args =
    settings.client === "http"
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
  const server = startServer({ target, port, dir });
  // The http client does not retry a refused connection: wait until the port answers.
  if (settings.client === "http") await load(port, 0, 1).catch(() => waitForPort(port));
  try {
    await load(port, total, connections);
  } finally {
    stop(server.child);
  }
  const { code, signal } = await server.exited;
  if (code !== 0 && signal !== "SIGTERM" && code !== 143)
    throw new Error(`${target} ended with ${code ?? signal}:\n${server.stderr}`);
  return { dir, lines: server.lines, total };
}

/** SIGTERM to the server: strace's tracee is its child (valgrind runs the server in its own process). */
function stop(child) {
  if (settings.wrap !== "strace") return child.kill("SIGTERM");
  const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(" ");
  process.kill(Number(children[0]), "SIGTERM");
}

async function waitForPort(port) {
  await new Promise((resolve) => {
    const child = spawn(process.execPath, [here("outside-load.mjs"), String(port), "0", "1", token, secret]);
    child.once("exit", resolve);
  });
}

/** callgrind's totals of every file a run wrote (one per process; threads are summed in each). */
function instructions(dir) {
  const files = readdirSync(dir).filter((name) => name.startsWith("callgrind."));
  const total = files.reduce((sum, name) => sum + totalOf(join(dir, name)), 0);
  if (total === 0) throw new Error(`callgrind wrote no totals in ${dir}`);
  return total;
}

/** strace's counts of write-like calls and their errors, per request. */
function syscalls(dir, requests) {
  const text = readFileSync(join(dir, "strace.txt"), "utf8");
  const row = (name) => {
    const match = new RegExp(`^\\s*[\\d.]+\\s+[\\d.]+\\s+\\d+\\s+(\\d+)\\s+(\\d+)?\\s*${name}$`, "m").exec(
      text,
    );
    return match ? { calls: Number(match[1]), errors: Number(match[2] ?? 0) } : { calls: 0, errors: 0 };
  };
  const per = (n) => (n / requests).toFixed(3);
  return ["write", "writev", "pwrite64", "futex", "epoll_wait"]
    .map((name) => {
      const { calls, errors } = row(name);
      return `${name} ${per(calls)}/req (${calls}, ${errors} errors)`;
    })
    .join("; ");
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
    if (settings.wrap === "strace") return `${syscalls(large.dir, large.total)} | ${lines}`;
    const perUnit = (instructions(large.dir) - instructions(small.dir)) / (2 * settings.units);
    return { perUnit, lines };
  } finally {
    if (!process.env.BENCH_KEEP) for (const run of runs) rmSync(run.dir, { recursive: true, force: true });
  }
}

const { targets: _, connections: __, ...factors } = settings;
console.log(`settings: ${JSON.stringify(factors)}`);
for (const connections of settings.connections) {
  const counts = {};
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
