#!/usr/bin/env node
// The README's main job (`npm run demo`, after the build): a receiver and a sender on loopback, on embedded SQLite,
// one subscription, a handful of New Plant events — each one signed, delivered, verified and stored, then handed on
// by the receiver to a small service of "your own" (a destination), which checks the forward's signature.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const core = await import(join(root, "packages/core/dist/index.js"));
const dataDir = join(root, "data", "demo");
// Each run starts from empty databases (earlier runs' subscriptions point at ports that are gone).
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // private, as the store makes the directories it creates
const receiverDb = join(dataDir, "receiver.db");
const senderDb = join(dataDir, "sender.db");

const token = core.createToken(); // what the receiver accepts, and the sender sends
const secret = core.createSecret(); // what the sender signs with, and the receiver verifies
const admin = core.createToken(); // for both apps' admin endpoints
const forwardSecret = core.createSecret(); // what the receiver signs its forwards with, and the service verifies

// "Your own service": what the receiver hands each stored event on to. It keeps every request it accepts.
const handedOn = [];
const service = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    handedOn.push({ headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => service.listen(0, "127.0.0.1", resolve));
const serviceUrl = `http://127.0.0.1:${service.address().port}/plant-events`;

const say = (text = "") => process.stdout.write(`${text}\n`);
const children = [];
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function start(name, bin, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, bin), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line && !child.url) {
        child.url = JSON.parse(line).url;
        resolve(child);
      }
    });
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("exit", (code) => {
      if (!child.url) reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
}

async function call(base, method, path, body, headers = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json", ...headers },
    ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const value = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${value.message}`);
  return value;
}

say("Plant Store toolkit demo — the New Plant webhook, end to end, on embedded SQLite\n");
const receiver = await start("plant-store-receiver", "apps/receiver/dist/bin.js", [
  ...["--port", "0", "--token", token, "--secret", secret, "--admin-token", admin, "--db", receiverDb],
  ...["--forward-to", serviceUrl, "--forward-secret", forwardSecret, "--allow-networks", "127.0.0.0/8"],
]);
const sender = await start("plant-store-sender", "apps/sender/dist/bin.js", [
  ...["--port", "0", "--admin-token", admin, "--db", senderDb, "--allow-networks", "127.0.0.0/8"],
]);
say(
  `receiver  ${receiver.url}/plant/webhook   (bearer token + Standard Webhooks signature required, int64 ids)`,
);
say(`sender    ${sender.url}   (admin API; the worker delivers in the background)`);
say(`service   ${serviceUrl}   (a small service of yours: the receiver forwards what it stored)\n`);

const subscription = await call(sender.url, "POST", "/subscriptions", {
  url: `${receiver.url}/plant/webhook`,
  token,
  secret,
});
say(`1. subscription ${subscription.id} → ${subscription.url}\n`);

const plants = [
  { id: 1, name: "Monstera deliciosa", tag: "tropical" },
  { id: 2, name: "Ficus lyrata", tag: "indoor" },
  { id: 3, name: "Žlutá růže 🌹", tag: "rose" },
  { id: 4, name: "Echeveria" },
];
// An int64 id beyond 2^53: as a JavaScript number it would round to …992, so this one exists only as JSON text.
const BIG = '{"id":9007199254740993,"name":"An int64 id beyond 2^53, never rounded"}';
say("2. publishing through POST /events (validated, stored in the sender's outbox, then 202):");
const published = [];
for (const body of [...plants.map((plant) => JSON.stringify(plant)), BIG]) {
  const result = await call(sender.url, "POST", "/events", body);
  published.push({ body, messageId: result.messageId });
  say(`   ${result.messageId}  ${body}`);
}

say(
  "\n3. delivered (signed with the subscription's secret, sent with its bearer token), verified and stored:",
);
const deadline = Date.now() + 15_000;
let deliveries = [];
while (Date.now() < deadline) {
  deliveries = (await call(sender.url, "GET", `/deliveries?subscriptionId=${subscription.id}`)).data;
  if (deliveries.length === published.length && deliveries.every((d) => d.state === "delivered")) break;
  await new Promise((r) => setTimeout(r, 100));
}
const storedText = await (
  await fetch(`${receiver.url}/events?limit=100`, { headers: { authorization: `Bearer ${admin}` } })
).text();
const stored = JSON.parse(storedText).data; // ids beyond 2^53 round here, so exactness is checked on the text
let ok = 0;
for (const { messageId, body } of published) {
  const delivery = deliveries.find((d) => d.messageId === messageId);
  const attempts = delivery
    ? (await call(sender.url, "GET", `/deliveries/${delivery.id}/attempts`)).data
    : [];
  const event = stored.find((e) => e.webhookId === messageId);
  const last = attempts.at(-1);
  // The receiver verified the signature before storing; the stored bytes must be exactly what was published.
  const exact =
    storedText.includes(`"webhookId":"${messageId}"`) && storedText.includes(`"payload":${body}}`);
  const good = delivery?.state === "delivered" && event && exact;
  if (good) ok++;
  say(
    `   ${good ? "✔" : "✘"} ${messageId}  delivered ${last ? `${last.status} in ${last.latencyMs} ms (attempt ${last.attempt})` : "—"}` +
      `  → signature verified, stored ${event ? `as #${event.seq}, bytes identical` : "—"}`,
  );
}

say(`\n${ok}/${published.length} events signed, delivered, verified and stored exactly once.`);

say(
  "\n4. handed on by the receiver to the service (same bytes, the provider's webhook-id, its own signature):",
);
const handedOk = await handOnCheck(published);
say(
  `\n${handedOk}/${published.length} events handed on to the service, each verified with the forward secret.`,
);
say("\nData files (SQLite, WAL; inbox writes and publishes commit with synchronous=FULL):");
say(`   ${relative(process.cwd(), receiverDb)}   the receiver's inbox`);
say(`   ${relative(process.cwd(), senderDb)}     the sender's subscriptions and outbox`);
say(
  "\nKeep both apps running yourself, in a shell from the repository root. They get new data files in data/live/:",
);
say("(the demo's files hold this run's subscription, whose receiver port is gone once the demo ends)");
const cli = "node apps/cli/dist/bin.js";
for (const line of [
  `export PLANT_STORE_TOKEN=$(${cli} token create | sed -n 1p)`,
  `export PLANT_STORE_WEBHOOK_SECRET=$(${cli} secret create | sed -n 1p)`,
  `export PLANT_STORE_ADMIN_TOKEN=$(${cli} token create | sed -n 1p) PLANT_STORE_SENDER_URL=http://127.0.0.1:4001`,
  "node apps/receiver/dist/bin.js --db data/live/receiver.db &   # add --forward-to <your service's URL> to hand events on",
  "node apps/sender/dist/bin.js --db data/live/sender.db --allow-networks 127.0.0.0/8 &",
  `${cli} subscriptions add http://127.0.0.1:4000/plant/webhook --token $PLANT_STORE_TOKEN --secret $PLANT_STORE_WEBHOOK_SECRET`,
  `${cli} publish --id 77 --name Fern && ${cli} deliveries list`,
]) {
  say(`   ${line}`);
}
say(`   (${cli} --help lists the rest: send, listen, validate, sign, verify, recover, …)`);

for (const child of [sender, receiver]) child.kill("SIGTERM");
const codes = await Promise.all(
  [sender, receiver].map(
    (child) => new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r))),
  ),
);
say(`\nBoth apps stopped cleanly on SIGTERM (exit codes ${codes.join(", ")}).`);
service.close();
process.exit(ok === published.length && handedOk === published.length && codes.every((c) => c === 0) ? 0 : 1);

/** Waits for the service to have every published event, then checks and prints each forward; returns how many held. */
async function handOnCheck(events) {
  const until = Date.now() + 15_000;
  const forwardOf = (id) => handedOn.find((r) => r.headers["webhook-id"] === id);
  while (Date.now() < until && !events.every((e) => forwardOf(e.messageId))) {
    await new Promise((r) => setTimeout(r, 100));
  }
  let good = 0;
  for (const { messageId, body } of events) {
    const got = forwardOf(messageId);
    const verified =
      got &&
      (await core.verify({
        secrets: [forwardSecret],
        id: got.headers["webhook-id"],
        timestamp: got.headers["webhook-timestamp"],
        signature: got.headers["webhook-signature"],
        body: got.body,
      }));
    const same = got?.body.equals(Buffer.from(body));
    const fine = Boolean(verified?.ok && same && !got.headers.authorization);
    if (fine) good++;
    say(
      `   ${fine ? "✔" : "✘"} ${messageId}  ${got ? `→ service: signature ${verified.ok ? "valid" : "INVALID"}, bytes ${same ? "identical" : "DIFFER"}` : "not received"}`,
    );
  }
  return good;
}
