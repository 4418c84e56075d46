// Receiver benchmark, one run: autocannon in its own process against four servers, each in its own process.
//   pnpm build && pnpm --filter @plant-store/receiver bench      (BENCH_SECONDS=8 by default)
// Ratios are against the bare node:http server measured in the same run.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSecret, createToken } from "@plant-store/core";

const run = promisify(execFile);
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const seconds = process.env.BENCH_SECONDS ?? "8";
const token = createToken();
const secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-receiver-bench-"));
const bin = here("../dist/bin.js");
const ours = ["--port", "0", "--token", token, "--secret", secret];

const targets = [
  { name: "bare node:http (reads body, 200)", args: [here("./bare-server.mjs")] },
  {
    name: "Fastify + ajv peer (same checks, in-memory dedup)",
    args: [here("./fastify-peer.mjs"), token, secret],
  },
  { name: "plant-store-receiver, in memory (:memory: SQLite)", args: [bin, ...ours, "--db", ":memory:"] },
  {
    name: "plant-store-receiver, SQLite file (synchronous=FULL)",
    args: [bin, ...ours, "--db", join(dir, "bench.db")],
  },
];

async function start(args) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const onData = (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.includes('"port"') || l.includes('"listening"'));
      if (!line) return;
      child.stdout.off("data", onData);
      child.stdout.resume(); // keep draining its logs (one line per request, as in production)
      const parsed = JSON.parse(line);
      resolve(parsed.port ?? new URL(parsed.url).port);
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

const results = [];
for (const [i, target] of targets.entries()) {
  const server = await start(target.args);
  await run(process.execPath, [here("./load.mjs"), server.url, token, secret, "2", `warm${i}`]); // warm-up
  const { stdout } = await run(
    process.execPath,
    [here("./load.mjs"), server.url, token, secret, seconds, `run${i}`],
    {
      maxBuffer: 1 << 20,
    },
  );
  const result = JSON.parse(stdout);
  server.child.kill("SIGTERM");
  await new Promise((r) => server.child.once("exit", r));
  if (result.non2xx || result.errors || !result.unique) throw new Error(`${target.name}: ${stdout}`);
  results.push({ ...target, ...result });
  console.error(
    `${target.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms`,
  );
}
rmSync(dir, { recursive: true, force: true });

const bare = results[0].rps;
const rows = results.map(
  (r) =>
    `| ${r.name} | ${Math.round(r.rps).toLocaleString("en-US")} | ${r.p50} | ${r.p99} | ${(r.rps / bare).toFixed(2)}× |`,
);
const table = [
  "| target | req/s | p50 ms | p99 ms | × bare |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...rows,
].join("\n");
console.log(table);
writeFileSync(
  here("../BENCH.md"),
  `# plant-store-receiver benchmark

Command: \`pnpm build && pnpm --filter @plant-store/receiver bench\` (\`BENCH_SECONDS\`, default 8 s per target after a
2 s warm-up). autocannon runs in its own process with 50 connections; every request carries a unique
\`webhook-id\` and a valid Standard Webhooks signature (signed before the run). Each server runs in its own
process; ours logs one JSON line per request, as in production. Ratios are against the bare server of the same
run. Node ${process.version}, ${cpus().length} cores shared with the load generator, ${new Date().toISOString().slice(0, 10)}.

${table}

Goals (issue 5): in memory ≥ 0.85× bare, SQLite ≥ 0.60× bare, p99 ≤ 10 ms.
`,
);
