// The machinery of the outside harnesses (issue 48: apps/receiver/bench/outside.mjs, apps/sender/bench/outside.mjs):
// a server started as a user starts it, under valgrind's callgrind with nothing but `--dump-instr=no
// --smc-check=all-non-file`, its stdout a pipe this process drains, a file, or /dev/null; its instructions are
// callgrind's totals over every thread. Two such servers run side by side, one serving W+N units and one W+3N:
// per unit = (total(W+3N) − total(W+N)) / 2N.
import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
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

/** Where a server's stdout goes: this process's pipe (drained), a file in `dir`, or /dev/null. */
function stdoutFor(mode, dir) {
  if (mode === "pipe") return "pipe";
  if (mode === "null") return "ignore";
  if (mode === "file") return openSync(join(dir, "stdout.log"), "w");
  throw new Error(`stdout: pipe, file or null, not ${mode}`);
}

/**
 * Starts `node <args>` under `wrap` ("callgrind", or "strace" for `strace -f -c`: syscalls, no count) with its files
 * in `dir`. The record counts the lines that reached the pipe (`lines`) and resolves `exited` once it ended.
 */
export function startCounted({ args, stdout = "pipe", dir, wrap = "callgrind", env }) {
  const node = [process.execPath, ...args];
  const wrapped =
    wrap === "strace"
      ? ["strace", "-f", "-c", "-o", join(dir, "strace.txt"), ...node]
      : ["valgrind", ...VALGRIND, `--callgrind-out-file=${join(dir, "callgrind.%p")}`, ...node];
  const out = stdoutFor(stdout, dir);
  const child = spawn(wrapped[0], wrapped.slice(1), {
    stdio: ["ignore", out, "pipe"],
    env: { ...process.env, ...env },
  });
  if (typeof out === "number") closeSync(out);
  const server = { child, wrap, lines: 0, stderr: "" };
  child.stdout?.on("data", (chunk) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) server.lines++;
  });
  child.stderr.on("data", (chunk) => {
    server.stderr = (server.stderr + chunk).slice(-4000);
  });
  server.exited = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  return server;
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
    throw new Error(`${label} ended with ${code ?? signal}:\n${server.stderr}`);
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
