// The load generator, run as its own process: autocannon, 50 connections, every request a unique webhook-id
// with a valid signature (signed before the run so signing costs nothing during it). Prints autocannon's result and
// its own CPU per request (it shares the machine's cores with the server it measures).
import autocannon from "autocannon";
import { signedRequest } from "./signed-request.mjs";

const [url, token, secret, seconds, prefix] = process.argv.slice(2);
const count = 400_000;
const timestamp = Math.floor(Date.now() / 1000);
const pool = new Array(count);
for (let i = 0; i < count; i++) {
  pool[i] = {
    method: "POST",
    path: "/plant/webhook",
    ...signedRequest(i, { prefix, token, secret, timestamp }),
  };
}
let next = 0;
const cpu = process.cpuUsage(); // after signing: only what autocannon itself spends
const result = await autocannon({
  url,
  connections: 50,
  duration: Number(seconds),
  requests: [{ setupRequest: () => pool[next++ % count] }],
});
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    unique: next <= count,
    loadCpuPerRequest: (({ user, system }) => (user + system) / result.requests.total)(process.cpuUsage(cpu)),
  })}\n`,
);
