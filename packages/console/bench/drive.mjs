// The load of throughput.mjs, in its own process so none of its work is counted: `warm + units` signed New Plant
// requests, each with its own webhook-id, over `concurrency` keep-alive connections; every one must answer 200.
//   node drive.mjs <url> <units> <warm> <concurrency> <token> <secret>
import { Agent, request } from "node:http";
import { signedRequest } from "../../../apps/receiver/bench/signed-request.mjs";

const [url, units, warm, concurrency, token, secret] = process.argv.slice(2);
const total = Number(units) + Number(warm);
const timestamp = Math.floor(Date.now() / 1000);
const prefix = `msg_${process.pid}_${Date.now()}`;
const requests = Array.from({ length: total }, (_, i) =>
  signedRequest(i, { prefix, token, secret, timestamp }),
);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const target = new URL("/plant/webhook", url);

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
  while (next < total) await send(requests[next++]);
};
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
agent.destroy();
