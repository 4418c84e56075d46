// The pg-boss peer of bench/vs-pgboss.mjs: a durable webhook sender written the way pg-boss's README and docs show
// it (`new PgBoss(url)`, `start`, `createQueue`, `send` or `insert`, `work` with a batch handler), with a worker that
// signs each body with `standardwebhooks` and POSTs it with undici; pg-boss retries what throws.
//   node bench/pgboss-peer.mjs <postgres url> <sink url> <whsec_ secret> <bearer token>
// Reads commands on stdin, one per line: `publish <mode> <first> <count>` (mode `bulk`: `insert` in chunks of 1,000;
// `send`: one `send` per event, 64 at a time) answers `published` once every job is stored; `stop` stops pg-boss and
// exits. Prints `ready` once its workers run.
import { createInterface } from "node:readline";
import PgBoss from "pg-boss";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { body } from "./fill.mjs";

const [url, sinkUrl, secret, token] = process.argv.slice(2);
const QUEUE = "webhooks";
/** 64 in flight: WORKERS workers fetching BATCH jobs each. */
const WORKERS = 4;
const BATCH = 16;

const boss = new PgBoss(url);
boss.on("error", (error) => process.stderr.write(`pg-boss: ${error.message}\n`));
await boss.start();
await boss.createQueue(QUEUE, { retryLimit: 10, retryDelay: 5, retryBackoff: true });

const webhook = new Webhook(secret);
const agent = new Agent({ connections: WORKERS * BATCH });

async function deliver(job) {
  const payload = JSON.stringify(job.data);
  const at = new Date();
  const res = await request(sinkUrl, {
    method: "POST",
    dispatcher: agent,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      "webhook-id": job.id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": webhook.sign(job.id, at, payload),
    },
    body: payload,
  });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`status ${res.statusCode}`);
}

// A full batch asks for the next one at once (`notifyWorker`) instead of waiting out the polling interval.
const workers = [];
for (let w = 0; w < WORKERS; w++) {
  let id;
  id = await boss.work(QUEUE, { batchSize: BATCH, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await Promise.all(jobs.map(deliver));
    if (jobs.length === BATCH) boss.notifyWorker(id);
  });
  workers.push(id);
}
const wake = () => {
  for (const id of workers) boss.notifyWorker(id);
};

async function publish(mode, first, count) {
  if (mode === "bulk") {
    for (let start = 0; start < count; start += 1000) {
      const n = Math.min(1000, count - start);
      await boss.insert(
        Array.from({ length: n }, (_, i) => ({ name: QUEUE, data: JSON.parse(body(first + start + i)) })),
      );
      wake();
    }
    return;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        await boss.send(QUEUE, JSON.parse(body(first + next++)));
        wake();
      }
    }),
  );
}

process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [command, mode, first, count] = line.trim().split(" ");
  if (command === "publish") {
    await publish(mode, Number(first), Number(count));
    process.stdout.write("published\n");
  } else if (command === "stop") {
    await boss.stop({ graceful: false, wait: true });
    await agent.close();
    process.exit(0);
  }
}
