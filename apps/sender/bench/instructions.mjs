// Instructions per delivery of the RUNNING sender, counted with callgrind (bench/callgrind.mjs at the repository root):
//   pnpm build && pnpm --filter @plant-store/sender bench:instructions      (also the second half of `pnpm bench`)
// BENCH_UNITS (default 4000): deliveries of the small run (the large one makes 3×), after BENCH_WARM (default 20000;
// after 2,000 the claim path had run ~31 times and V8 was still compiling it (git's history of docs/decisions.md). With
// 1,000 counted, what V8 compiles or collects in one run and not the other moved every row (BENCH-instructions.md);
// BENCH_TARGETS: a comma-separated subset of the targets below; PLANT_STORE_BENCH_PG_URL (or
// PLANT_STORE_TEST_PG_URL's server) adds the PostgreSQL targets.
// Every target is one process under callgrind (bench/counted.mjs); the sink is a bare node:http server in another
// process, and events are published by bench/fill.mjs in a third before the counted run starts (not counted).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COUNTED_NODE_FLAGS, countPerUnit, kilo } from "../../../bench/callgrind.mjs";
import { fill } from "./fill.mjs";

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const UNITS = Number(process.env.BENCH_UNITS ?? 4000);
const WARM = Number(process.env.BENCH_WARM ?? 20000);
const only = process.env.BENCH_TARGETS?.split(",").map((s) => s.trim());
// The bench's own database (dropped and created for every run): PLANT_STORE_BENCH_PG_URL as given, or
// plant_store_bench on PLANT_STORE_TEST_PG_URL's server.
const testPg = process.env.PLANT_STORE_TEST_PG_URL;
const pgUrl =
  process.env.PLANT_STORE_BENCH_PG_URL ??
  (testPg && Object.assign(new URL(testPg), { pathname: "/plant_store_bench" }).href);
const dir = mkdtempSync(join(tmpdir(), "plant-store-sender-instructions-"));
const sqlite = join(dir, "sender.db");

function startSink() {
  const child = spawn(process.execPath, [here("./sink.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) {
        const { port } = JSON.parse(out.split("\n")[0]);
        resolve({ child, base: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/plant/webhook` });
      }
    });
  });
}
const sink = await startSink();
/** One request with no time limit (a run under callgrind takes minutes); resolves with the answer's text. */
function call(url, method = "GET") {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(text) : reject(new Error(`${url}: ${res.statusCode} ${text}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}
const sinkCount = async (path = "/_count") => JSON.parse(await call(sink.base + path)).received;
const post = (url) => call(url, "POST");

// Node flags of the counted process (COUNTED_NODE_FLAGS): V8's background threads and timing-driven heap sizing
// make two counts of the same loop differ far more than without them (BENCH-instructions.md).
const nodeFlags = COUNTED_NODE_FLAGS;
const counted = (mode, db) => ({
  command: process.execPath,
  args: [...nodeFlags, here("./counted.mjs"), mode],
  env: { BENCH_SINK: sink.url, ...(db && { BENCH_DB: db }) },
});

const targets = [
  {
    name: "raw",
    label: "raw undici `request` loop to the sink, 64 in flight (baseline)",
    server: counted("raw"),
    drive: async ({ url, units, warm }) => {
      await post(`${url}/run?n=${warm}`);
      await post(`${url}/run?n=${units}`);
    },
  },
  ...[
    ["sqlite", sqlite, "SQLite file (WAL)"],
    ...(pgUrl ? [["pg", pgUrl, "PostgreSQL (local server)"]] : []),
  ].flatMap(([backend, db, where]) => [
    {
      name: `sender-${backend}`,
      label: `the sender (dist/bin.js, log level info), ${where}, 64 in flight`,
      server: counted("sender", db),
      drive: async ({ url, units, warm }) => {
        await fill(db, sink.url, warm + units);
        const start = await sinkCount();
        await post(`${url}/run`);
        await sinkCount(`/_wait?n=${start + warm + units}`);
      },
    },
    {
      name: `outbox-${backend}`,
      label: `outbox bookkeeping alone (claim ≤ 64 + attempt + outcome, no HTTP), ${where}`,
      server: counted("outbox", db),
      drive: async ({ url, units, warm }) => {
        await fill(db, sink.url, warm + units);
        await post(`${url}/run?n=${warm + units}`);
      },
    },
  ]),
].filter((t) => !only || only.includes(t.name));

const results = new Map();
try {
  for (const target of targets) {
    const result = await countPerUnit({ ...target, units: UNITS, warm: WARM });
    results.set(target.name, result);
    console.log(`${target.name}: ${kilo(result.perUnit)} instructions per unit`);
  }
} finally {
  sink.child.kill();
  rmSync(dir, { recursive: true, force: true });
}

const raw = results.get("raw")?.perUnit;
const ratio = (n) => (raw ? `${(n / raw).toFixed(2)}×` : "—");
const rows = targets.map((t) => {
  const n = results.get(t.name).perUnit;
  return `| ${t.label} | ${kilo(n)} | ${ratio(n)} |`;
});
for (const backend of ["sqlite", "pg"]) {
  const sender = results.get(`sender-${backend}`)?.perUnit;
  if (sender !== undefined && raw)
    rows.push(
      `| the sender's cost beyond the raw request (${backend}): sender − raw | ${kilo(sender - raw)} | ${ratio(sender - raw)} |`,
    );
}
const table = ["| per delivery | instructions | ÷ raw request |", "| --- | ---: | ---: |", ...rows].join(
  "\n",
);
console.log(table);
// A full run replaces the table between the markers of BENCH-instructions.md; the text around it is kept.
if (!only) {
  const file = here("../BENCH-instructions.md");
  const [start, end] = ["<!-- bench:instructions -->", "<!-- /bench:instructions -->"];
  const page = readFileSync(file, "utf8");
  const stamp = `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${UNITS.toLocaleString("en-US")} deliveries counted (runs of ${(WARM + UNITS).toLocaleString("en-US")} and ${(WARM + 3 * UNITS).toLocaleString("en-US")}), ${nodeFlags.join(" ") || "no node flags"}`;
  writeFileSync(
    file,
    `${page.slice(0, page.indexOf(start) + start.length)}\nLast full run: ${stamp}.\n\n${table}\n${page.slice(page.indexOf(end))}`,
  );
}
