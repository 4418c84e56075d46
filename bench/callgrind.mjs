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

const VALGRIND = ["--tool=callgrind", "--smc-check=all-non-file", "--dump-instr=no", "--collect-jumps=no"];

/** Total instructions of one run: server started under callgrind, driven for `warm + units`, then stopped. */
async function countRun({ server, drive, units, warm, dir, label }) {
  const out = join(dir, `${label}-${units}`);
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
    await drive({ url, units, warm });
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
  }
  const { code, signal } = await exited;
  // A server without a SIGTERM handler dies of it: callgrind still writes its counts.
  if (code !== 0 && signal !== "SIGTERM")
    throw new Error(`${label} ended with ${code ?? signal}:\n${stderr}`);
  let total = 0;
  for (const file of readdirSync(dir).filter((name) => name.startsWith(`${label}-${units}.`))) {
    const match = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), "utf8"));
    total += Number(match?.[1] ?? 0);
  }
  if (total === 0) throw new Error(`${label}: callgrind wrote no totals`);
  return total;
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
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `123456` → `"123.5K"`. */
export const kilo = (n) => `${(n / 1000).toFixed(1)}K`;
