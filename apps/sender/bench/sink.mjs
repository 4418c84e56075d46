// A bare sink in its own process: reads the body, answers 200; with "log", prints "<webhook-id> <epoch ms>" per request.
// Control (not counted as deliveries): GET /_count answers how many deliveries arrived so far, with how many distinct
// webhook-ids; GET /_wait?n=N answers once N have arrived (the instruction bench waits on it instead of asking the
// sender, whose own instructions it counts).
import { createServer } from "node:http";

const log = process.argv[2] === "log";
let received = 0;
const ids = new Set();
const waiters = [];
const counts = () => JSON.stringify({ received, distinct: ids.size });

const server = createServer((req, res) => {
  if (req.url.startsWith("/_")) {
    const n = Number(new URL(req.url, "http://sink").searchParams.get("n") ?? 0);
    const answer = () => res.writeHead(200, { "content-type": "application/json" }).end(counts());
    if (req.url.startsWith("/_wait") && received < n) waiters.push({ n, answer });
    else answer();
    return;
  }
  req.on("data", () => {});
  req.on("end", () => {
    received++;
    const id = req.headers["webhook-id"];
    if (id !== undefined) ids.add(id);
    if (log) process.stdout.write(`${id} ${performance.timeOrigin + performance.now()}\n`);
    res.writeHead(200, { "content-length": 0 });
    res.end();
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (received >= waiters[i].n) waiters.splice(i, 1)[0].answer();
    }
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
