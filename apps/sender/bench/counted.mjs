// The process whose instructions the instruction bench counts (started under callgrind by bench/callgrind.mjs):
//   node bench/counted.mjs raw|sender|outbox
// It listens on a control port (printed as {"url"}) and does nothing until told, so start-up is the same in every run:
// - raw: POST /run?n=N posts N requests to the sink with undici's `request`, 64 in flight, answers when done;
// - sender: POST /run starts the real bin (dist/bin.js, the production configuration path, its logger on stdout)
//   on BENCH_DB, filled beforehand by bench/fill.mjs; the bench then waits on the sink, not on this process;
// - outbox: POST /run?n=N runs the outbox's bookkeeping alone on BENCH_DB — claims of up to 64 and one outcome
//   with its attempt per delivery, as the worker records them — with no HTTP at all, answers when done.
// SIGTERM ends it (the bin shuts down gracefully on the same signal).
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { openStore } from "@plant-store/store";
import { Agent, request } from "undici";
import { BENCH_TOKEN, body } from "./fill.mjs";

const mode = process.argv[2];
const CONCURRENCY = 64;
const sinkUrl = process.env.BENCH_SINK;
const db = process.env.BENCH_DB;

async function rawLoop(n) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const res = await request(sinkUrl, {
          method: "POST",
          dispatcher: agent,
          headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
          body: body(i),
        });
        await res.body.dump();
      }
    }),
  );
}

function startSender() {
  const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
  process.argv = [
    process.argv[0],
    bin,
    "--db",
    db,
    "--admin-token",
    BENCH_TOKEN,
    "--port",
    "0",
    "--allow-networks",
    "127.0.0.0/8",
    "--concurrency",
    String(CONCURRENCY),
    "--per-subscription",
    String(CONCURRENCY),
    "--retention-days",
    "0",
  ];
  return import(bin);
}

async function bookkeeping(n) {
  const store = await openStore({ url: db, logger: { warn() {} } });
  const lease = { leaseMs: 60_000, workerId: "bench" };
  let done = 0;
  try {
    while (done < n) {
      const claimed = await store.outbox.claim(CONCURRENCY, lease);
      if (claimed.length === 0) throw new Error(`only ${done} of ${n} deliveries were due`);
      await Promise.all(
        claimed.map((d) =>
          store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1, responseBody: "" }),
        ),
      );
      done += claimed.length;
    }
  } finally {
    await store.close();
  }
}

const agent = mode === "raw" ? new Agent({ connections: CONCURRENCY }) : undefined;
const control = createServer(async (req, res) => {
  const n = Number(new URL(req.url, "http://control").searchParams.get("n") ?? 0);
  try {
    if (mode === "raw") await rawLoop(n);
    else if (mode === "sender") await startSender();
    else if (mode === "outbox") await bookkeeping(n);
    else throw new Error(`unknown mode ${mode}`);
    res.writeHead(200).end();
  } catch (error) {
    res.writeHead(500).end(String(error?.stack ?? error));
  }
});
control.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${control.address().port}` })}\n`),
);
process.on("SIGTERM", () => {
  control.close();
  control.closeAllConnections();
  void agent?.close();
});
