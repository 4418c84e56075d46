// Receiver cost per request in CPU instructions, counted by valgrind's callgrind: a figure that does not depend on
// what else the shared machine is doing, where req/s from the autocannon run (run.mjs) moves by ±15% from minute
// to minute. Each target serves signed New Plant requests injected in batches of 20 through light-my-request (the
// request objects Fastify's `inject` uses): one process, no sockets, so every run does exactly the same work. The
// count per request is the difference between a run serving 3×N and one serving N requests (both after the same
// warm-up, both signing the same 3×N requests first), so start-up, JIT warm-up and the signing cancel out. What
// the kernel does for a socket is not counted: these are the user-space costs of each layer.
//   pnpm build && pnpm --filter @plant-store/receiver bench:instructions      (needs valgrind; ~25 min)
import { execFileSync } from "node:child_process";
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLineBatcher, createLogger } from "@plant-store/app-kit";
import { createSecret, createToken } from "@plant-store/core";
import inject from "light-my-request";
import { createReceiver } from "../dist/index.js";
import { createFastifyPeer } from "./fastify-peer.mjs";
import { createChecks } from "./peer-checks.mjs";
import { signedRequest } from "./signed-request.mjs";

const BATCH = 20;
const WARM_BATCHES = 100;
const N_BATCHES = Number(process.env.BENCH_BATCHES ?? 150);
const here = fileURLToPath(import.meta.url);

const TARGETS = {
  bare: "bare node:http handler (reads body, 200)",
  floor: "the same checks inline (the floor: no log, no store)",
  fastify: "Fastify + ajv peer (same checks, in-memory dedup)",
  ours: "plant-store-receiver, in memory (:memory: SQLite), log line",
  "ours-no-log": "plant-store-receiver, in memory, no log line",
  "ours-no-store": "plant-store-receiver, log line, inbox replaced by a no-op",
};

if (process.argv[2] === "--child") await child(process.argv[3], Number(process.argv[4]));
else parent();

function parent() {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-instructions-"));
  const counts = {};
  // BENCH_TARGETS=bare,ours,fastify runs only those (a quick comparison; the table keeps the rows it has).
  const only = process.env.BENCH_TARGETS?.split(",");
  for (const target of Object.keys(TARGETS).filter((name) => !only || only.includes(name))) {
    const totals = [N_BATCHES, 3 * N_BATCHES].map((batches) => {
      const out = join(dir, `${target}-${batches}`);
      execFileSync(
        "valgrind",
        [
          "--tool=callgrind",
          "--smc-check=all-non-file", // V8 writes the code it runs
          `--callgrind-out-file=${out}.%p`,
          process.execPath,
          here,
          "--child",
          target,
          String(batches),
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      // One file per process (the main one; node's helper threads are in it): its "summary:" line is the total.
      let total = 0;
      for (const file of readdirSync(dir).filter((f) => f.startsWith(`${target}-${batches}.`))) {
        const summary = /^summary: (\d+)/m.exec(readFileSync(join(dir, file), "utf8"));
        total += Number(summary?.[1] ?? 0);
      }
      return total;
    });
    counts[target] = (totals[1] - totals[0]) / (2 * N_BATCHES * BATCH);
    console.error(
      `${TARGETS[target]}: ${Math.round(counts[target]).toLocaleString("en-US")} instructions/request`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  const k = (n) => `${(n / 1000).toFixed(1)}K`;
  const rows = Object.entries(TARGETS)
    .filter(([target]) => target in counts)
    .map(
      ([target, name]) =>
        `| ${name} | ${k(counts[target])} | ${k(counts[target] - counts.bare)} | ${(counts[target] / counts.bare).toFixed(2)}× |`,
    );
  const table = [
    "| target | instructions/request | above bare | × bare |",
    "| --- | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
  console.log(table);
  if (only) return; // a partial run does not replace the committed table
  writeFileSync(
    fileURLToPath(new URL("../BENCH-instructions.md", import.meta.url)),
    `# plant-store-receiver: instructions per request

Command: \`pnpm build && pnpm --filter @plant-store/receiver bench:instructions\` (needs valgrind; \`BENCH_BATCHES\`,
default ${N_BATCHES}). Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.

Counted by valgrind's callgrind in one process with no sockets (requests injected through light-my-request, in
batches of ${BATCH}), as the difference between serving ${3 * N_BATCHES * BATCH} and ${N_BATCHES * BATCH} requests after the same
warm-up: the same figures on a busy or a quiet machine, within about 1%. Kernel work (the socket reads and writes,
the fsync of a file) is not in them; "bare" includes light-my-request's own request and response objects, which
every row pays alike.

${table}

What the rows tell apart: the contract's checks (bearer token, Standard Webhooks HMAC, JSON, schema, dedup) are the
floor's cost above bare; our receiver adds its store (the difference to the no-store row), its JSON log line (the
no-log row) and its own layers (the node adapter, the pipeline's finer checks and error paths, metrics). The
autocannon run over real sockets is in [BENCH.md](BENCH.md).
`,
  );
}

async function child(target, batches) {
  const token = createToken();
  const secret = createSecret();
  const timestamp = Math.floor(Date.now() / 1000);
  // Both runs sign the same number of requests, so signing cancels out of the difference.
  const requests = Array.from({ length: (WARM_BATCHES + 3 * N_BATCHES) * BATCH }, (_, i) => {
    const { body, headers } = signedRequest(i, { prefix: "msg", token, secret, timestamp });
    return { method: "POST", url: "/plant/webhook", payload: body, headers };
  });
  const app = target === "fastify" ? createFastifyPeer(token, secret) : undefined;
  const dispatch = app ? undefined : await listenerFor(target, token, secret);
  let next = 0;
  const serveBatch = async () => {
    const pending = [];
    for (let i = 0; i < BATCH; i++) {
      const request = requests[next++];
      pending.push(app ? app.inject(request) : inject(dispatch, request));
    }
    for (const response of await Promise.all(pending)) {
      if (response.statusCode !== 200) throw new Error(`${target}: ${response.statusCode} ${response.body}`);
    }
  };
  for (let b = 0; b < WARM_BATCHES + batches; b++) await serveBatch();
  process.exit(0);
}

async function listenerFor(target, token, secret) {
  if (target === "bare") {
    return (req, res) => {
      req.on("data", () => {});
      req.on("end", () => {
        res.writeHead(200, { "content-length": 0 });
        res.end();
      });
    };
  }
  if (target === "floor") {
    const check = createChecks(token, secret);
    return (req, res) => {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        const failed = check(req.headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        res.writeHead(failed ? failed[0] : 200, { "content-length": 0 });
        res.end();
      });
    };
  }
  const logger =
    target === "ours-no-log"
      ? undefined
      : createLogger("plant-store-receiver", "info", createLineBatcher(openSync("/dev/null", "w")));
  const receiver = await createReceiver({
    tokens: [token],
    secrets: [secret],
    store: ":memory:",
    ...(logger && { logger }),
  });
  if (target === "ours-no-store") {
    // Batched like the inbox's group commit (a batch's answers settle together, a turn later), but no SQL.
    const waiting = [];
    receiver.store.inbox.record = () =>
      new Promise((resolve) => {
        if (waiting.push(resolve) > 1) return;
        setImmediate(() => {
          for (const settle of waiting.splice(0)) settle({ duplicate: false });
        });
      });
  }
  return receiver.server.listeners("request")[0];
}
