// A bare sink in its own process: reads the body, answers 200; with "log", prints "<webhook-id> <epoch ms>" per request.
import { createServer } from "node:http";

const log = process.argv[2] === "log";
const server = createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => {
    if (log)
      process.stdout.write(`${req.headers["webhook-id"]} ${performance.timeOrigin + performance.now()}\n`);
    res.writeHead(200, { "content-length": 0 });
    res.end();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
