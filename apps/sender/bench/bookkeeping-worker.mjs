// A worker thread that runs the outbox's bookkeeping alone (bookkeeping.mjs) on its own SQLite file: it fills the
// outbox, posts "ready", runs when told "go", and posts the milliseconds the run took.
import { parentPort, workerData } from "node:worker_threads";
import { prepareBookkeeping } from "./bookkeeping.mjs";

const { dir, name, n } = workerData;
const books = await prepareBookkeeping(dir, name, n);
parentPort.once("message", async () => {
  const t0 = performance.now();
  await books.run();
  const ms = performance.now() - t0;
  await books.close();
  parentPort.postMessage({ ms });
});
parentPort.postMessage("ready");
