// What single parts of a webhook request cost, in instructions, each counted on its own in one process under
// callgrind: the part runs `units` and `3 × units` times after the same warm-up, in batches of ten per event-loop
// turn as requests arrive, and the figure is the difference per unit minus the empty loop's. It tells where the
// receiver's instructions go beyond what the Fastify peer does (issue 23), not what a whole request costs (that is
// callgrind.mjs, over sockets).
//   pnpm build && node apps/receiver/bench/parts.mjs            (needs valgrind; ~2 min)
// Parts: the signature check (`createVerifier`: HMAC-SHA256 over node:crypto; the pipeline skips its promise), the bearer
// check (`createTokenVerifier`: a constant-time comparison with a clear token), the request's log line (app-kit's
// pino logger and line batcher, into /dev/null, written as the receiver writes it: `createAccessLine`), its metrics
// (app-kit's `createTally`: requests by status and their latency), its inbox commit
// (the store's `inbox.record` on a SQLite file, WAL, synchronous=FULL: ten records of one turn in one group commit,
// as ten requests arriving together are; fsync itself is kernel time, not counted), the body's parse (`parseEvent`,
// lossless: JSON and the schema's zod check) and the whole core pipeline over plain data (`createWebhookHandler`:
// bearer, signature, parse, event; storing nothing). BENCH_PARTS=parse,pipeline counts only those.
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLineBatcher, createLogger, logText } from "@plant-store/app-kit";
import {
  createSecret,
  createToken,
  createTokenVerifier,
  createVerifier,
  createWebhookHandler,
  parseEvent,
} from "@plant-store/core";
import { catalog } from "@plant-store/spec";
import { openStore } from "@plant-store/store";
import { COUNTED_NODE_FLAGS } from "../../../bench/callgrind.mjs";
import { signedRequest } from "./signed-request.mjs";

const ALL_PARTS = [
  "empty",
  "signature",
  "bearer",
  "inbox commit",
  "log line",
  "metrics",
  "parse",
  "pipeline",
];
const PARTS = process.env.BENCH_PARTS ? ["empty", ...process.env.BENCH_PARTS.split(",")] : ALL_PARTS;
const here = fileURLToPath(import.meta.url);

/** What every part needs: a token, a secret, one signed request and the receiver's own log, metrics and handler. */
async function partFixtures(part) {
  const token = createToken();
  const secret = createSecret();
  const timestamp = Math.floor(Date.now() / 1000);
  const request = signedRequest(1, { prefix: "msg_parts", token, secret, timestamp });
  const logger = createLogger("plant-store-receiver", "info", createLineBatcher(openSync("/dev/null", "w")));
  const { createAccessLine } = await import("../dist/access-line.js");
  const { createMetrics } = await import("../dist/metrics.js");
  return {
    token,
    timestamp,
    headers: request.headers,
    body: Buffer.from(request.body),
    verify: createVerifier({ secrets: [secret] }),
    tokens: createTokenVerifier([token]),
    accessLine: createAccessLine(logger),
    metrics: createMetrics(async () => 0),
    store: part === "inbox commit" ? await openStore(join(process.env.BENCH_DIR, "inbox.db")) : undefined,
    // The whole receive pipeline of core (bearer, signature, JSON, schema, event) over plain data, storing nothing.
    handler: createWebhookHandler({
      tokens: [token],
      secrets: [secret],
      mode: "lossless",
      now: () => timestamp * 1000,
      onEvent: () => ({ duplicate: false }),
    }),
  };
}

/** The unit of work of each part, over its fixtures. */
function partWork(f) {
  const { headers, body, timestamp } = f;
  const kept = { "content-type": "application/json", "webhook-id": headers["webhook-id"] };
  let seq = 0;
  return {
    empty: async () => {},
    signature: async () => {
      const verdict = await f.verify({
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
        body,
        now: () => timestamp * 1000, // a fixed clock: the count does not depend on how long the run takes
        toleranceSeconds: 300,
      });
      if (!verdict.ok) throw new Error(verdict.message);
    },
    bearer: async () => {
      if (!(await f.tokens.verify(f.token))) throw new Error("token refused");
    },
    "log line": async () =>
      f.accessLine({
        webhookId: logText(headers["webhook-id"]),
        eventType: logText(undefined),
        status: 200,
        outcome: "stored",
        reason: undefined,
        ms: Math.round(1.2345 * 10_000) / 10,
      }),
    metrics: async () => f.metrics.observeRequest(200, 0.0012),
    parse: async () => {
      if (!parseEvent(catalog[0], body, { mode: "lossless" }).ok) throw new Error("the body did not parse");
    },
    pipeline: async () => {
      const response = await f.handler.handle({
        method: "POST",
        path: "/plant/webhook",
        headers: (name) => headers[name],
        body,
      });
      if (response.status !== 200) throw new Error(response.body);
    },
    "inbox commit": async () => {
      const webhookId = `msg_parts_${seq++}`;
      const result = await f.store.inbox.record({ webhookId, eventType: "newPlant", body, headers: kept });
      if (result.duplicate) throw new Error(`${webhookId} was a duplicate`);
    },
  };
}

async function runPart(part, units) {
  const fixtures = await partFixtures(part);
  const work = partWork(fixtures)[part];
  const batches = async (n) => {
    for (let done = 0; done < n; done += 10) {
      await Promise.all(Array.from({ length: 10 }, work));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await batches(20_000); // warm-up: V8 has compiled the part's code before the counted units
  await batches(units);
  await fixtures.store?.close();
}

function counted(part, units, dir) {
  const out = join(dir, `${part.replace(" ", "-")}-${units}`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      "valgrind",
      [
        "--tool=callgrind",
        `--callgrind-out-file=${out}`,
        process.execPath,
        ...COUNTED_NODE_FLAGS,
        here,
        part,
        String(units),
      ],
      {
        stdio: ["ignore", "inherit", "ignore"],
        env: { ...process.env, BENCH_DIR: mkdtempSync(join(dir, "run-")) },
      },
    );
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve(Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(out, "utf8"))?.[1]))
        : reject(new Error(`${part} ended with ${code}`)),
    );
  });
}

if (process.argv[2]) {
  await runPart(process.argv[2], Number(process.argv[3]));
  process.exit(0);
}
const UNITS = Number(process.env.BENCH_UNITS ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), "plant-store-parts-"));
try {
  const perUnit = {};
  // Two at a time: a count does not depend on what else the machine runs.
  for (let i = 0; i < PARTS.length; i += 2) {
    await Promise.all(
      PARTS.slice(i, i + 2).map(async (part) => {
        const [small, large] = await Promise.all([counted(part, UNITS, dir), counted(part, 3 * UNITS, dir)]);
        perUnit[part] = (large - small) / (2 * UNITS);
      }),
    );
  }
  console.log("| part | instructions per request |\n| --- | ---: |");
  for (const part of PARTS.slice(1)) {
    console.log(`| ${part} | ${((perUnit[part] - perUnit.empty) / 1000).toFixed(1)}K |`);
  }
  console.log(`(the empty loop, subtracted: ${(perUnit.empty / 1000).toFixed(1)}K per unit)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
