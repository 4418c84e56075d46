// The limit: a bare node:http server that reads the body and answers 200.
import { createServer } from "node:http";

const server = createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => {
    res.writeHead(200, { "content-length": 0 });
    res.end();
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
