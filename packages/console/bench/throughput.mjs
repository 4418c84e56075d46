// The bar "the apps' request throughput is unchanged when nobody has the console open", counted: the
// receiver's webhook path in CPU instructions per request (../../../bench/callgrind.mjs: callgrind on the RUNNING
// server while the receiver bench's drive.mjs, another process, sends signed New Plant requests; (total(3N) − total(N)) / 2N after the
// same warm-up), with the console mounted as shipped and with `@plant-store/console` swapped for a stand-in that
// serves nothing (console-switch.mjs). The variants alternate, ROUNDS times each, so a drift shows as spread.
//   pnpm --filter @plant-store/receiver... build && pnpm --filter @plant-store/console bench:callgrind   (valgrind)
//   BENCH_UNITS=2000 BENCH_WARM=3000 BENCH_CONCURRENCY=8 BENCH_ROUNDS=2 (the defaults)
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { COUNTED_NODE_FLAGS, countPerUnit, kilo } from "../../../bench/callgrind.mjs";

const UNITS = Number(process.env.BENCH_UNITS ?? 2000);
const WARM = Number(process.env.BENCH_WARM ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const RECEIVER = here("../../../apps/receiver/dist/bin.js");
const token = createToken();
const secret = createSecret();

// V8 compiles and collects on a schedule set by the work done, not by the clock (COUNTED_NODE_FLAGS): without it,
// runs of the same server spread too far to compare (BENCH.md).
const NODE_FLAGS = COUNTED_NODE_FLAGS;
const receiver = (consoleSetting) => ({
  command: process.execPath,
  args: [...NODE_FLAGS, "--import", here("console-switch.mjs"), RECEIVER, "--port", "0", "--db", ":memory:"],
  env: {
    PLANT_STORE_TOKEN: token,
    PLANT_STORE_WEBHOOK_SECRET: secret,
    PLANT_STORE_ADMIN_TOKENS: createToken(),
    PLANT_STORE_LOG_LEVEL: "info",
    PLANT_STORE_BENCH_CONSOLE: consoleSetting,
  },
});
const VARIANTS = {
  mounted: ["console mounted (as shipped)", receiver("on")],
  unmounted: ["console not mounted (stand-in serving nothing)", receiver("off")],
};

/** Without valgrind: each variant answers /console/ as it should (200 mounted, 404 not), so the switch is real. */
async function checkSwitch(variant, expected) {
  const { command, args, env } = VARIANTS[variant][1];
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let out = "";
    const url = await new Promise((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const found = /"url":"([^"]+)"/.exec(out);
        if (found) resolve(found[1]);
      });
      child.once("exit", () => reject(new Error(`${variant} exited before listening`)));
    });
    const status = (await fetch(`${url}/console/`)).status;
    if (status !== expected) throw new Error(`${variant}: GET /console/ answered ${status}, not ${expected}`);
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
  }
}

const drive = ({ url, units, warm }) =>
  new Promise((resolve, reject) => {
    const load = spawn(
      process.execPath,
      [
        here("../../../apps/receiver/bench/drive.mjs"),
        url,
        String(units),
        String(warm),
        String(CONCURRENCY),
        token,
        secret,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    load.once("error", reject);
    load.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the load ended with ${code}`))));
  });

await checkSwitch("mounted", 200);
await checkSwitch("unmounted", 404);
const counts = { mounted: [], unmounted: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of Object.keys(VARIANTS)) {
    const { perUnit } = await countPerUnit({
      name: `receiver-${variant}`,
      server: VARIANTS[variant][1],
      drive,
      units: UNITS,
      warm: WARM,
    });
    counts[variant].push(perUnit);
    console.error(`round ${round + 1}, ${VARIANTS[variant][0]}: ${kilo(perUnit)} instructions/request`);
  }
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const base = mean(counts.unmounted);
const rows = Object.entries(VARIANTS).map(
  ([variant, [name]]) =>
    `| ${name} | ${counts[variant].map(kilo).join(", ")} | ${kilo(mean(counts[variant]))} | ${((mean(counts[variant]) / base - 1) * 100).toFixed(2)}% |`,
);
console.log(
  [
    `Node ${process.version} ${NODE_FLAGS.join(" ")}, ${new Date().toISOString().slice(0, 10)}; receiver --db :memory:, log level info; ${WARM} requests of warm-up, N = ${UNITS}, ${CONCURRENCY} keep-alive connections.`,
    "",
    "| receiver | instructions/request, each round | mean | vs not mounted |",
    "| --- | ---: | ---: | ---: |",
    ...rows,
  ].join("\n"),
);
