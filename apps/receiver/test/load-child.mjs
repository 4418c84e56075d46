// Load generator for the durability test, run as its own process: keeps 16 signed requests with unique ids in
// flight against the receiver and prints the id of every request that was answered 200, one per line.
// Connection errors (the receiver was killed) are expected: the request is dropped and a new id is tried.
import { sign } from "@plant-store/core";

const [url, token, secret, prefix] = process.argv.slice(2);
let n = 0;
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});

async function worker() {
  while (!stopping) {
    const id = `${prefix}-${n++}`;
    const body = JSON.stringify({ id: n, name: `Plant ${n}` });
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const res = await fetch(`${url}/plant/webhook`, {
        method: "POST",
        body,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": await sign({ secret, id, timestamp, body }),
        },
        signal: AbortSignal.timeout(5000),
      });
      await res.arrayBuffer();
      if (res.status === 200) process.stdout.write(`${id}\n`);
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
await Promise.all(Array.from({ length: 16 }, worker));
