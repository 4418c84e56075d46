// The machinery of the outside harnesses (issue 48: apps/receiver/bench/outside.mjs, apps/sender/bench/outside.mjs):
// a server started as a user starts it, under valgrind's callgrind with nothing but `--dump-instr=no
// --smc-check=all-non-file`, its stdout a pipe this process drains, a file, /dev/null or a terminal; its instructions are
// callgrind's totals over every thread. Two such servers run side by side, one serving W+N units and one W+3N:
// per unit = (total(W+3N) − total(W+N)) / 2N.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { totalOf } from "./callgrind.mjs";

const VALGRIND = ["--tool=callgrind", "--dump-instr=no", "--smc-check=all-non-file"];

/** A port free now, for a server to take. */
export function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Where a server's stdout goes: this process's pipe (drained), a file in `dir`, /dev/null, or a pseudo-terminal that
 * `pty-run.py` drains into this process's pipe (a server started in a terminal).
 */
function stdoutFor(mode, dir) {
  if (mode === "pipe" || mode === "tty") return "pipe";
  if (mode === "null") return "ignore";
  if (mode === "file") return openSync(join(dir, "stdout.log"), "w");
  throw new Error(`stdout: pipe, file or null, not ${mode}`);
}

/** Where a server's stderr goes: this process's pipe (drained, its last 4,000 characters kept) or a file in `dir`. */
function stderrFor(mode, dir) {
  if (mode === "pipe") return "pipe";
  if (mode === "file") return openSync(join(dir, "stderr.log"), "w");
  throw new Error(`stderr: pipe or file, not ${mode}`);
}

/**
 * Starts `node <args>` under `wrap` ("callgrind", or "strace" for `strace -f -c`: syscalls, no count) with its files
 * in `dir`. The record counts the lines that reached the pipe (`lines`) and resolves `exited` once it ended. With
 * `stamp` (a file name in `dir` the server appends to: V8's `--redirect-code-traces-to`), each new line of that file
 * is stamped with the count of lines that had reached the pipe when it was seen, into `<stamp>.stamped`.
 */
export function startCounted({
  args,
  stdout = "pipe",
  stderr = "pipe",
  dir,
  wrap = "callgrind",
  env,
  stamp,
}) {
  const node = [process.execPath, ...args];
  const wrapped =
    wrap === "strace"
      ? ["strace", "-f", "-c", "-o", join(dir, "strace.txt"), ...node]
      : ["valgrind", ...VALGRIND, `--callgrind-out-file=${join(dir, "callgrind.%p")}`, ...node];
  if (stdout === "tty") wrapped.unshift("python3", fileURLToPath(new URL("pty-run.py", import.meta.url)));
  const out = stdoutFor(stdout, dir);
  const err = stderrFor(stderr, dir);
  const child = spawn(wrapped[0], wrapped.slice(1), {
    stdio: ["ignore", out, err],
    env: { ...process.env, ...env },
  });
  for (const fd of [out, err]) if (typeof fd === "number") closeSync(fd);
  const server = { child, wrap, lines: 0, stderr: "" };
  child.stdout?.on("data", (chunk) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) server.lines++;
  });
  child.stderr?.on("data", (chunk) => {
    server.stderr = (server.stderr + chunk).slice(-4000);
  });
  const stopStamping = stamp ? stampLines(server, join(dir, stamp)) : () => {};
  server.exited = new Promise((resolve) =>
    child.once("close", (code, signal) => {
      stopStamping();
      resolve({ code, signal });
    }),
  );
  return server;
}

/**
 * Polls `file` every 100 ms (the server is ~100× slower under valgrind, so a poll spans a few requests) and stamps
 * each new line with `server.lines`; returns the function that reads the rest and writes `<file>.stamped`. V8 prints
 * part of some trace lines to stdout whatever `--redirect-code-traces-to` says (the reason of "marking dependent
 * code"): stdout's lines that are not JSON are kept, stamped, in `<file>.stdout` (and counted in `server.lines`).
 */
function stampLines(server, file) {
  const stamped = [];
  const strays = [];
  let offset = 0;
  let partial = "";
  let outPartial = "";
  server.child.stdout?.on("data", (chunk) => {
    const lines = (outPartial + chunk.toString("utf8")).split("\n");
    outPartial = lines.pop();
    for (const line of lines) if (!line.startsWith("{")) strays.push(`${server.lines}\t${line}`);
  });
  const poll = () => {
    if (!existsSync(file) || statSync(file).size <= offset) return;
    const bytes = readFileSync(file).subarray(offset);
    offset += bytes.length;
    const lines = (partial + bytes.toString("utf8")).split("\n");
    partial = lines.pop();
    for (const line of lines) stamped.push(`${server.lines}\t${line}`);
  };
  const timer = setInterval(poll, 100);
  return () => {
    clearInterval(timer);
    poll();
    if (partial) stamped.push(`${server.lines}\t${partial}`);
    writeFileSync(`${file}.stamped`, `${stamped.join("\n")}\n`);
    writeFileSync(`${file}.stdout`, `${strays.join("\n")}\n`);
  };
}

/** SIGTERM to the server (valgrind runs it in its own process; strace's tracee is its child), then its exit. */
export async function stopCounted(server, label) {
  const { child } = server;
  if (server.wrap !== "strace") child.kill("SIGTERM");
  else {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(" ");
    process.kill(Number(children[0]), "SIGTERM");
  }
  const { code, signal } = await server.exited;
  // A server without a SIGTERM handler dies of it: callgrind still writes its counts.
  if (code !== 0 && signal !== "SIGTERM" && code !== 143)
    throw new Error(
      `${label} ended with ${code ?? signal}:\n${server.stderr || "(its stderr is in stderr.log)"}`,
    );
}

/** callgrind's totals of every file a run wrote in `dir` (one per process; its threads are summed in it). */
export function instructionsIn(dir) {
  const files = readdirSync(dir).filter((name) => name.startsWith("callgrind."));
  const total = files.reduce((sum, name) => sum + totalOf(join(dir, name)), 0);
  if (total === 0) throw new Error(`callgrind wrote no totals in ${dir}`);
  return total;
}

/** strace's count of each of `names` (calls and errors) in `dir`, per unit. */
export function syscallsIn(dir, units, names = ["write", "pwrite64", "futex"]) {
  const text = readFileSync(join(dir, "strace.txt"), "utf8");
  return names
    .map((name) => {
      const row = new RegExp(`^\\s*[\\d.]+\\s+[\\d.]+\\s+\\d+\\s+(\\d+)\\s+(\\d+)?\\s*${name}$`, "m").exec(
        text,
      );
      const [calls, errors] = row ? [Number(row[1]), Number(row[2] ?? 0)] : [0, 0];
      return `${name} ${(calls / units).toFixed(3)}/unit (${calls}, ${errors} errors)`;
    })
    .join("; ");
}
