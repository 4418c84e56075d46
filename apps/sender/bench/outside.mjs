// The sender's per-attempt log line counted the way issue 48's outside harness counts the receiver's request: the
// built bin started as a user starts it under `valgrind --tool=callgrind` (V8's default flags, the default log
// level), its stdout a pipe this process drains, a file, or /dev/null (../../../bench/outside.mjs). Each of two
// senders side by side delivers a filled SQLite outbox (W+N and W+3N events, filled beforehand by fill.mjs in its
// own process) to a bare sink of its own (sink.mjs); per delivery = (total(W+3N) − total(W+N)) / 2N.
//   pnpm build && pnpm --filter @plant-store/sender bench:outside                 (needs valgrind)
//   OUTSIDE_STDOUT=pipe,null (each in turn)   OUTSIDE_WARM=2000   OUTSIDE_UNITS=1000   OUTSIDE_LOG_LEVEL=
//   OUTSIDE_WRAP=strace: native, `strace -f -c` (write syscalls per delivery) instead of the count
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kilo } from "../../../bench/callgrind.mjs";
import { freePort, instructionsIn, startCounted, stopCounted, syscallsIn } from "../../../bench/outside.mjs";
import { BENCH_TOKEN } from "./fill.mjs";

const env = (name, fallback) => process.env[`OUTSIDE_${name}`] ?? fallback;
const settings = {
  stdout: env("STDOUT", "pipe,null").split(","),
  warm: Number(env("WARM", 2000)),
  units: Number(env("UNITS", 1000)),
  logLevel: env("LOG_LEVEL", ""),
  wrap: env("WRAP", "callgrind"),
};
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** A child process that prints one JSON line on stdout; resolves with it parsed (and the child). */
function jsonLineOf(args) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve({ child, value: JSON.parse(out.split("\n")[0]) });
    });
    child.once("exit", (code) => code !== 0 && reject(new Error(`${args[0]} ended with ${code}`)));
  });
}

/** GET `url`; resolves with the parsed JSON answer (no time limit: a sender under callgrind takes minutes). */
function getJson(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve(JSON.parse(text)));
    });
    req.on("error", reject);
    req.end();
  });
}

/** One sender delivering `total` events to a sink of its own, then SIGTERM. */
async function deliver({ total, stdout, dir }) {
  const sink = await jsonLineOf([here("sink.mjs")]);
  const base = `http://127.0.0.1:${sink.value.port}`;
  const db = join(dir, "sender.db");
  try {
    await jsonLineOf([here("fill.mjs"), db, `${base}/plant/webhook`, String(total)]);
    const port = await freePort();
    const level = settings.logLevel ? ["--log-level", settings.logLevel] : [];
    const args = [here("../dist/bin.js"), "--db", db, "--admin-token", BENCH_TOKEN, "--port", String(port)];
    const flags = ["--allow-networks", "127.0.0.0/8", "--concurrency", "64", "--per-subscription", "64"];
    const all = [...args, ...flags, "--retention-days", "0", ...level];
    const sender = startCounted({ args: all, stdout, dir, wrap: settings.wrap });
    try {
      await getJson(`${base}/_wait?n=${total}`);
    } finally {
      await stopCounted(sender, "sender");
    }
    return { lines: sender.lines };
  } finally {
    sink.child.kill();
  }
}

console.log(`settings: ${JSON.stringify(settings)}`);
for (const stdout of settings.stdout) {
  const runs = [settings.warm + settings.units, settings.warm + 3 * settings.units].map((total) => ({
    total,
    stdout,
    dir: mkdtempSync(join(tmpdir(), "plant-store-sender-outside-")),
  }));
  try {
    const [small, large] = await Promise.all(runs.map(deliver));
    if (settings.wrap === "strace") {
      console.log(`| ${stdout} | ${syscallsIn(runs[1].dir, runs[1].total)} | lines: ${large.lines} |`);
      continue;
    }
    const perUnit = (instructionsIn(runs[1].dir) - instructionsIn(runs[0].dir)) / (2 * settings.units);
    console.log(
      `| ${stdout} | ${kilo(perUnit)} | log lines through the pipe: ${small.lines}, ${large.lines} |`,
    );
  } finally {
    // BENCH_KEEP=1 keeps the callgrind files: `node ../../bench/callgrind-diff.mjs <W+N file> <W+3N file> N --grouped`.
    if (process.env.BENCH_KEEP)
      console.error(`callgrind files kept in ${runs.map((run) => run.dir).join(" (W+N), ")} (W+3N)`);
    else for (const run of runs) rmSync(run.dir, { recursive: true, force: true });
  }
}
