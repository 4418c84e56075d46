// CLI benchmark, one run:  pnpm build && pnpm --filter @plant-store/cli bench
// 1. cold start of `plant-store --version` (median of 21 runs) against `node -e 0` measured in the same run;
// 2. `send --count 2000 --concurrency 50` against a local `plant-store listen`.
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
  return performance.now() - t;
}
const node = [];
const version = [];
const help = [];
for (let i = 0; i < 21; i++) {
  node.push(time(["-e", "0"]));
  version.push(time([cli, "--version"]));
  help.push(time([cli, "send", "--help"]));
}

const listener = spawn(process.execPath, [cli, "listen", "--port", "0", "--json"], {
  stdio: ["ignore", "ignore", "pipe"],
});
const intro = await new Promise((resolve) => {
  let err = "";
  listener.stderr.on("data", (c) => {
    err += c;
    const line = err.split("\n").find((l) => l.includes('"listening"'));
    if (line) resolve(JSON.parse(line));
  });
});
const sent = spawnSync(
  process.execPath,
  [
    cli,
    "send",
    intro.listening,
    "--token",
    intro.token,
    "--secret",
    intro.secret,
    "--count",
    "2000",
    "--concurrency",
    "50",
    "--json",
  ],
  { encoding: "utf8" },
);
listener.kill();
const summary = JSON.parse(sent.stdout);

const ms = (x) => `${x.toFixed(1)} ms`;
const table = [
  "| measure | value |",
  "| --- | ---: |",
  `| \`node -e 0\` (baseline), median of 21 | ${ms(median(node))} |`,
  `| \`plant-store --version\`, median of 21 | ${ms(median(version))} (${(median(version) / median(node)).toFixed(2)}× baseline) |`,
  `| \`plant-store send --help\` (loads commander), median of 21 | ${ms(median(help))} |`,
  `| \`send --count 2000 --concurrency 50\` → \`listen\` (signed) | ${summary.rate} req/s, p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms, ${summary.ok}/2000 ok |`,
].join("\n");
console.log(table);
writeFileSync(
  new URL("../BENCH.md", import.meta.url),
  `# plant-store CLI benchmark

Command: \`pnpm build && pnpm --filter @plant-store/cli bench\`. One run; each start is a fresh process. Node
${process.version}, ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}. Goal (issue 7): \`--version\` cold start ≤ 150 ms.

${table}
`,
);
