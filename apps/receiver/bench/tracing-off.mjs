// Issue 25's bar "tracing off costs nothing measurable on the receiver (instruction count within 2%)", counted: with no
// OpenTelemetry SDK registered, what the webhook path adds for tracing is two calls of the receiver's tracer lookup
// (`tracer()` in receiver.ts: one per request, one per commit) and two untaken branches. This counts exactly that code,
// built (dist/tracing.js), under callgrind: a process making K and 3K such request-sized lookups, the difference per
// request, against the receiver's own instructions per request (BENCH-instructions.md, counted on the running server).
//   pnpm --filter @plant-store/receiver build && node apps/receiver/bench/tracing-off.mjs   (needs valgrind; ~1 min)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COUNTED_NODE_FLAGS } from "../../../bench/callgrind.mjs";

const here = fileURLToPath(import.meta.url);
const K = Number(process.env.BENCH_UNITS ?? 200_000);
const RECEIVER_PER_REQUEST = Number(process.env.BENCH_RECEIVER_PER_REQUEST ?? 254_200); // SQLite row, 2026-11-25

if (process.argv[2] === "--child") {
  const { receiverTracer } = await import("../dist/tracing.js");
  const tracer = receiverTracer();
  const units = Number(process.argv[3]);
  let traced = 0;
  // Warm-up past V8's tiers, then the counted loop: the same two lookups a request makes.
  for (let i = 0; i < 50_000 + units; i++) {
    if (tracer()) traced++;
    if (tracer()) traced++;
  }
  if (traced !== 0) throw new Error("an SDK is registered: this counts tracing off");
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "plant-store-tracing-off-"));
try {
  const total = (units) => {
    const out = join(dir, `run-${units}`);
    const run = spawnSync(
      "valgrind",
      [
        "--tool=callgrind",
        "--dump-instr=no",
        `--callgrind-out-file=${out}`,
        process.execPath,
        ...COUNTED_NODE_FLAGS,
        here,
        "--child",
        String(units),
      ],
      { encoding: "utf8" },
    );
    if (run.status !== 0) throw new Error(`valgrind ended with ${run.status}:\n${run.stderr.slice(-2000)}`);
    const summary = /^summary: (\d+)/m.exec(readFileSync(out, "utf8"));
    if (!summary) throw new Error("no summary line in the callgrind output");
    return Number(summary[1]);
  };
  const perRequest = (total(3 * K) - total(K)) / (2 * K);
  const share = (perRequest / RECEIVER_PER_REQUEST) * 100;
  console.log(
    `tracing off: ${perRequest.toFixed(1)} instructions per request (two tracer lookups), ${share.toFixed(3)}% of the receiver's ${(RECEIVER_PER_REQUEST / 1000).toFixed(1)}K (bar: within 2%)`,
  );
  if (share >= 2) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
