// A worker thread that runs the outbox's bookkeeping alone (bookkeeping.mjs) on its own SQLite file: it fills the
// outbox (after a warm-up on another one), posts "ready", runs when told "go", and posts the milliseconds it took.
import { parentPort, workerData } from "node:worker_threads";
import { prepareBookkeeping } from "./bookkeeping.mjs";

const { dir, name, n } = workerData;
// Warmed up like the main thread's bookkeeping (which ran before in the same round): V8 compiles this thread's code anew.
const warm = await prepareBookkeeping(dir, `${name}-warm-up`, Math.min(n, 5000));
await warm.run();
await warm.close();
const books = await prepareBookkeeping(dir, name, n);
parentPort.once("message", async () => {
  const t0 = performance.now();
  await books.run();
  const ms = performance.now() - t0;
  await books.close();
  parentPort.postMessage({ ms });
});
parentPort.postMessage("ready");
