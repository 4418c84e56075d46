// Instructions per delivery of publishing with applications (application-shapes.mjs), counted by callgrind: each
// shape is one process publishing through the store's own publish into a fresh SQLite file (WAL), run twice under
// valgrind, W + N and W + 3N publishes after the same set-up; the count per delivery is
// (total(W+3N) − total(W+N)) / (deliveries of 2N), so start-up, set-up and warm-up cancel out. Kernel work (the WAL's
// writes, fsync) is not counted: the process's system CPU time and its write system calls and bytes (/proc/self/io:
// the WAL frames it appends, one write each) per delivery of the same runs are printed beside it.
//   pnpm --filter @plant-store/store build && node apps/sender/bench/applications-counted.mjs [N] [W]
// BENCH_SHAPES: a comma-separated subset of the shapes (default today,apps-one).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COUNTED_NODE_FLAGS, totalOf } from "../../../bench/callgrind.mjs";
import { isWide, publish, shaped } from "./application-shapes.mjs";

const VALGRIND = ["--tool=callgrind", "--smc-check=all-non-file", "--dump-instr=no", "--collect-jumps=no"];

/** This process's write system calls and bytes written so far (/proc/self/io): the WAL's frames, counted. */
function ioCounts() {
  const fields = Object.fromEntries(
    readFileSync("/proc/self/io", "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(": ")),
  );
  return { syscw: Number(fields.syscw), wchar: Number(fields.wchar) };
}

if (process.argv[2] === "--run") {
  // One counted process: node applications-counted.mjs --run <shape> <file> <warm> <publishes>
  const [, , , shape, file, warm, n] = process.argv;
  const { openStore } = await import("@plant-store/store");
  const target = await shaped(await openStore({ url: file, logger: { warn() {} } }), shape);
  await publish(target, Number(warm), 0);
  const io = ioCounts();
  const before = process.cpuUsage();
  const deliveries = await publish(target, Number(n), 1_000_000);
  const cpu = process.cpuUsage(before);
  const after = ioCounts();
  await target.store.close();
  const written = { writes: after.syscw - io.syscw, bytes: after.wchar - io.wchar };
  console.log(JSON.stringify({ deliveries, user: cpu.user, system: cpu.system, ...written }));
} else {
  const N = Number(process.argv[2] ?? 2000);
  const W = Number(process.argv[3] ?? 4000);
  // BENCH_VALGRIND=0: the same runs without valgrind, for the write counts and CPU times alone (minutes faster).
  const counted = process.env.BENCH_VALGRIND !== "0";
  const shapes = (process.env.BENCH_SHAPES ?? "today,apps-one").split(",").map((s) => s.trim());
  const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-apps-counted-"));
  const script = fileURLToPath(import.meta.url);
  const run = (shape, n) =>
    new Promise((resolve, reject) => {
      const out = join(dir, `${shape}-${n}`);
      const publishes = isWide(shape) ? Math.max(64, n / 100) : n;
      const warm = isWide(shape) ? Math.max(64, W / 100) : W;
      const args = [...COUNTED_NODE_FLAGS, script, "--run", shape, join(dir, `${shape}-${n}.db`)];
      args.push(String(warm), String(publishes));
      const child = counted
        ? spawn("valgrind", [...VALGRIND, `--callgrind-out-file=${out}.%p`, process.execPath, ...args], {
            stdio: ["ignore", "pipe", "pipe"],
          })
        : spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.stderr.on("data", (c) => (stderr = (stderr + c).slice(-4000)));
      child.once("exit", (code) => {
        if (code !== 0) return reject(new Error(`${shape} ${n}: exit ${code}\n${stderr}`));
        let total = 0;
        for (const f of readdirSync(dir).filter((x) => x.startsWith(`${shape}-${n}.`) && !x.endsWith(".db")))
          if (/\.\d+$/.test(f)) total += totalOf(join(dir, f));
        resolve({ total, ...JSON.parse(stdout.trim().split("\n").at(-1)) });
      });
    });
  try {
    const result = {};
    for (const shape of shapes) {
      const small = await run(shape, N);
      const large = await run(shape, 3 * N);
      const deliveries = large.deliveries - small.deliveries;
      const per = (x) => Number((x / large.deliveries).toFixed(2));
      result[shape] = {
        ...(counted && { instructionsPerDelivery: Math.round((large.total - small.total) / deliveries) }),
        // Of the large run's measured publishes (under valgrind, slowed: only their ratio means anything).
        userUsPerDelivery: per(large.user),
        systemUsPerDelivery: per(large.system),
        writesPerDelivery: per(large.writes),
        bytesWrittenPerDelivery: Math.round(large.bytes / large.deliveries),
      };
    }
    console.log(JSON.stringify({ node: process.version, n: N, warm: W, perDelivery: result }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
