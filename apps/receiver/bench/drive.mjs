// The load of the instruction count (callgrind.mjs), run as its own process so none of its work is counted:
// `warm + units` signed requests, each with a unique webhook-id, over `concurrency` keep-alive connections, every
// one of which must be answered 200.
//   node drive.mjs <url> <units> <warm> <concurrency> <token> <secret> [path]
import { Agent, request } from "node:http";
import { signedRequest } from "./signed-request.mjs";

const [url, units, warm, concurrency, token, secret, path = "/plant/webhook"] = process.argv.slice(2);
const total = Number(units) + Number(warm);
const prefix = `msg_${process.pid}_${Date.now()}`;
// Signed as sent, with the current time: a run under valgrind can outlast the receiver's 5-minute tolerance.
const signed = (i) => signedRequest(i, { prefix, token, secret, timestamp: Math.floor(Date.now() / 1000) });
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const target = new URL(path, url);

const send = ({ body, headers }) =>
  new Promise((resolve, reject) => {
    const req = request(
      target,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve()
            : reject(
                new Error(`answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`),
              ),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });

let next = 0;
const worker = async () => {
  while (next < total) await send(signed(next++));
};
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
agent.destroy();
