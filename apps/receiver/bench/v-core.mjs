// dev variant: core pipeline via createNodeHandler, Set dedup, no log/metrics/store
import { createServer } from "node:http";
import { createNodeHandler } from "@plant-store/core/node";
const [token, secret, mode] = process.argv.slice(2);
const seen = new Set();
let onEvent = () => {};
let dedup = { has: (id) => seen.has(id), add: (id) => { seen.add(id); } };
let store;
if (mode === "store" || mode === "storefile") {
  const { openStore } = await import("@plant-store/store");
  store = await openStore({ url: mode === "store" ? ":memory:" : process.argv[5] });
  dedup = undefined;
  onEvent = async (event) => ({ duplicate: (await store.inbox.record({ webhookId: event.id, body: event.body, headers: event.headers })).duplicate });
}
const server = createServer(createNodeHandler({ tokens: [token], secrets: [secret], onEvent, ...(dedup && { dedup }) }));
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on("SIGTERM", () => process.exit(0));
