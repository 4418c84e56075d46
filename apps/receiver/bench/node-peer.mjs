// The floor for any receiver doing these checks: the bare node:http server plus the checks of peer-checks.mjs,
// inline, with no routing, no logging and no store. Nothing doing the same work can be faster than this.
import { createServer } from "node:http";
import { createChecks } from "./peer-checks.mjs";

const check = createChecks(...process.argv.slice(2));
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const failed = check(req.headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    if (failed) {
      const body = JSON.stringify({ error: failed[0], message: failed[1] });
      res.writeHead(failed[0], {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    res.writeHead(200, { "content-length": 0 });
    res.end();
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
