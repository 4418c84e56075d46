// Instructions per unit of work (a request served, a delivery made) of a RUNNING server, counted by valgrind's
// callgrind while another process drives it over loopback sockets. Each target runs twice, serving N and then 3N
// units after the same warm-up; the count per unit is (total(3N) − total(N)) / 2N, so start-up, JIT warm-up and
// shutdown cancel out, and a busy machine changes how long it takes, not the figure. Kernel work (socket reads and
// writes, fsync) is not counted: these are user-space instructions of the server process and its threads.
//
//   const perUnit = await countPerUnit({ name: "bare", server: { command, args, env }, drive, units: 1000 });
//
// `server` is started under valgrind and must print one JSON line with `url` (or `port`) on stdout once it listens,
// or a pino "listening" line with `url`. `drive({ url, units, warm })` runs the load (normally a child process) and
// resolves when every unit is acknowledged. The server is stopped with SIGTERM and must exit by itself.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/**
 * Node flags of every counted process (BENCH_NODE_FLAGS, space-separated, overrides them). V8 then compiles and
 * collects on the main thread, and collects only when an allocation needs room: no background compiler or GC
 * threads, no heap sizing by elapsed time, no incremental marking paced by the clock, no scavenges run as timed
 * tasks. Without the first two, counts of one server moved by a third between runs; without the last two, a
 * server's run of 9,000 requests sometimes held a burst of collections the run of 3,000 did not, and the
 * difference came out negative or doubled. A fixed hash seed: from a random one, V8's start-up derives its hash
 * secrets by a prime search whose length varies, and that start-up difference lands in the per-unit figure. The
 * counts behind both are in git's history of docs/decisions.md.
 */
export const COUNTED_NODE_FLAGS = (
  process.env.BENCH_NODE_FLAGS ??
  "--single-threaded --predictable-gc-schedule --no-incremental-marking --no-minor-gc-task --hash-seed=1"
)
  .split(" ")
  .filter(Boolean);

const VALGRIND = ["--tool=callgrind", "--smc-check=all-non-file", "--dump-instr=no", "--collect-jumps=no"];

/**
 * Starts `server` under callgrind and waits for its URL; `work(url, pid)` runs while it serves, then the server is
 * stopped with SIGTERM. Resolves with what `work` resolved with, once the server has exited.
 */
async function underCallgrind({ server, out, label }, work) {
  const child = spawn(
    "valgrind",
    [...VALGRIND, `--callgrind-out-file=${out}.%p`, server.command, ...server.args],
    {
      env: { ...process.env, ...server.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let result;
  try {
    const url = await new Promise((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => {
        try {
          const parsed = JSON.parse(line);
          const found = parsed.url ?? (parsed.port && `http://127.0.0.1:${parsed.port}`);
          if (found) resolve(found);
        } catch {
          // not a JSON line: the server's own output
        }
      });
      child.stdout.on("end", () => reject(new Error(`${label} exited before listening:\n${stderr}`)));
      child.once("error", reject);
    });
    child.stdout.resume();
    result = await work(url, child.pid);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
  }
  const { code, signal } = await exited;
  // A server without a SIGTERM handler dies of it: callgrind still writes its counts.
  if (code !== 0 && signal !== "SIGTERM")
    throw new Error(`${label} ended with ${code ?? signal}:\n${stderr}`);
  return result;
}

/** The instructions a callgrind output file holds (its `summary:` or `totals:` line). */
export const totalOf = (file) =>
  Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(file, "utf8"))?.[1] ?? 0);

/** Total instructions of one run: server started under callgrind, driven for `warm + units`, then stopped. */
async function countRun({ server, drive, units, warm, dir, label }) {
  const out = join(dir, `${label}-${units}`);
  await underCallgrind({ server, out, label }, (url) => drive({ url, units, warm }));
  let total = 0;
  for (const file of readdirSync(dir).filter((name) => name.startsWith(`${label}-${units}.`))) {
    total += totalOf(join(dir, file));
  }
  if (total === 0) throw new Error(`${label}: callgrind wrote no totals`);
  return total;
}

/** `callgrind_control <flag> <pid>`: zero (-z) or dump (-d) the counters of a running callgrind process. */
function callgrindControl(flag, pid) {
  return new Promise((resolve, reject) => {
    const control = spawn("callgrind_control", [flag, String(pid)], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    control.stdout.on("data", (chunk) => {
      output += chunk;
    });
    control.stderr.on("data", (chunk) => {
      output += chunk;
    });
    control.once("error", reject);
    control.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`callgrind_control ${flag} ${pid} ended with ${code}: ${output}`)),
    );
  });
}

/**
 * Instructions per unit of `target` counted in windows of ONE running process: after `warm` units the counters
 * are zeroed (`callgrind_control -z`); then windows of `units` units follow, each ending with a dump of the counters
 * (`callgrind_control -d`, which zeroes them again), until the last `windows` windows agree within `settle`
 * (relative spread) or `maxWindows` windows have run. Start-up, warm-up and shutdown fall outside every window; a
 * window's count is reproducible, but V8's optimizing compiler can still be busy thousands of requests after start,
 * so the count waits until it has settled. Returns the median of the last `windows` windows, every window's count
 * per unit, and whether they settled.
 */
export async function countWindows({
  name,
  server,
  drive,
  units,
  warm = units,
  windows = 3,
  settle = 0.03,
  maxWindows = 12,
}) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-callgrind-"));
  const label = name.replace(/[^a-z0-9-]/gi, "_");
  const out = join(dir, `${label}-windows`);
  const spread = (xs) => (Math.max(...xs) - Math.min(...xs)) / Math.min(...xs);
  try {
    const perWindow = await underCallgrind({ server, out, label }, async (url, pid) => {
      await drive({ url, units: warm, warm: 0 });
      await callgrindControl("-z", pid);
      const counts = [];
      for (let window = 1; window <= maxWindows; window++) {
        await drive({ url, units, warm: 0 });
        await callgrindControl("-d", pid);
        const file = join(dir, `${label}-windows.${pid}.${window}`);
        const total = totalOf(file);
        if (total === 0)
          throw new Error(`${label}: callgrind dumped no totals for window ${window} (${file})`);
        counts.push(total / units);
        if (counts.length >= windows && spread(counts.slice(-windows)) <= settle) break;
      }
      return counts;
    });
    const last = perWindow.slice(-windows);
    const sorted = [...last].sort((a, b) => a - b);
    return {
      perUnit: sorted[Math.floor(sorted.length / 2)],
      perWindow,
      settled: spread(last) <= settle,
    };
  } finally {
    if (process.env.BENCH_KEEP) console.error(`callgrind files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Instructions per unit of `target`: runs it for `units` and `3 × units` after `warm` units and returns the
 * difference per unit, with both totals for the record.
 */
export async function countPerUnit({ name, server, drive, units, warm = units }) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-callgrind-"));
  const label = name.replace(/[^a-z0-9-]/gi, "_");
  try {
    const small = await countRun({ server, drive, units, warm, dir, label });
    const large = await countRun({ server, drive, units: 3 * units, warm, dir, label });
    return { perUnit: (large - small) / (2 * units), small, large };
  } finally {
    // BENCH_KEEP=1 keeps callgrind's files (callgrind_annotate them to see where the instructions go).
    if (process.env.BENCH_KEEP) console.error(`callgrind files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** `123456` → `"123.5K"`. */
export const kilo = (n) => `${(n / 1000).toFixed(1)}K`;
