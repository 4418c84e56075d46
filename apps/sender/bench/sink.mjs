// A bare sink in its own process: reads the body, answers 200 (204 with "204"); with "log", prints
// "<webhook-id> <epoch ms>" per request.
// Control (not counted as deliveries): GET /_count answers how many deliveries arrived so far, how many distinct
// (path, webhook-id) pairs (ten subscribers on ten paths count ten), and when the first and the last arrived (epoch
// ms); GET /_wait?n=N answers the same once N have arrived (the instruction bench waits on it instead of asking the
// sender, whose own instructions it counts);
// GET /_reset starts counting again.
import { createServer } from "node:http";

const log = process.argv.includes("log");
const status = process.argv.includes("204") ? 204 : 200;
let received = 0;
let first = null;
let last = null;
const ids = new Set();
const waiters = [];
const counts = () => JSON.stringify({ received, distinct: ids.size, first, last });

const server = createServer((req, res) => {
  if (req.url.startsWith("/_")) {
    const n = Number(new URL(req.url, "http://sink").searchParams.get("n") ?? 0);
    const answer = () => res.writeHead(200, { "content-type": "application/json" }).end(counts());
    if (req.url.startsWith("/_reset")) {
      received = 0;
      first = last = null;
      ids.clear();
    }
    if (req.url.startsWith("/_wait") && received < n) waiters.push({ n, answer });
    else answer();
    return;
  }
  req.on("data", () => {});
  req.on("end", () => {
    received++;
    last = performance.timeOrigin + performance.now();
    first ??= last;
    const id = req.headers["webhook-id"];
    if (id !== undefined) ids.add(`${req.url} ${id}`); // one per subscriber path and message
    if (log) process.stdout.write(`${id} ${last}\n`);
    res.writeHead(status, status === 204 ? {} : { "content-length": 0 });
    res.end();
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (received >= waiters[i].n) waiters.splice(i, 1)[0].answer();
    }
  });
});
// Idle connections stay open: a client under callgrind runs far slower, and a connection the sink closed just as a
// request was sent on it would fail that request (undici does not retry a POST).
server.keepAliveTimeout = 10 * 60_000;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
