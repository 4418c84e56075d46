// Core benchmarks, one run, ratios against baselines measured in the same run.
//   pnpm build && pnpm --filter @plant-store/core bench
// 1. verify + parse + validate of one signed New Plant: ours vs the `standardwebhooks` library + ajv on the spec's
//    own JSON Schema (what a user would write by hand).
// 2. the whole pipeline (bearer, signature, JSON, schema, dedup) through createWebhookHandler vs the same
//    hand-written steps.
// Runs the built package (dist/), as users get it.
import { writeFileSync } from "node:fs";
import { document } from "@plant-store/spec";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Webhook } from "standardwebhooks";
import { Bench } from "tinybench";
import { createTokenVerifier, createWebhookHandler, parseNewPlant, sign, verify } from "../dist/index.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TOKEN = "psk_1111111111111111111111111111114SunM0";
const BODY = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';
const BYTES = new TextEncoder().encode(BODY);
const now = () => 1_700_000_000_000;
const timestamp = 1_700_000_000;
const signature = await sign({ secret: SECRET, id: "msg_bench", timestamp, body: BODY });
const headers = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  "webhook-id": "msg_bench",
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature,
};

const ajv = new Ajv2020({ strict: true });
ajv.addKeyword({ keyword: "components" });
ajv.addFormat("int64", { type: "number", validate: (v) => v >= -(2 ** 63) && v < 2 ** 63 });
ajv.addSchema({ $id: "spec", components: { schemas: document.components.schemas } });
const validate = ajv.getSchema("spec#/components/schemas/NewPlant");
const wh = new Webhook(SECRET.slice("whsec_".length));
// standardwebhooks checks the timestamp against the real clock, so its headers carry the current time.
const peerTimestamp = () => Math.floor(Date.now() / 1000);
const peerHeaders = async () => {
  const ts = peerTimestamp();
  return {
    "webhook-id": "msg_bench",
    "webhook-timestamp": String(ts),
    "webhook-signature": await sign({ secret: SECRET, id: "msg_bench", timestamp: ts, body: BODY }),
  };
};
let peerSigned = await peerHeaders();
setInterval(async () => {
  peerSigned = await peerHeaders();
}, 1000).unref();

const tokens = createTokenVerifier([TOKEN]);
let n = 0;
const seen = new Set();
// Both pipelines deduplicate the same way (a Set keyed by a counter, so every request is "new").
function remember() {
  const id = `m${n++}`;
  if (!seen.has(id)) seen.add(id);
  if (seen.size > 10_000) seen.clear();
}
const handler = createWebhookHandler({ tokens: [TOKEN], secrets: [SECRET], now, onEvent: remember });

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add("peer: standardwebhooks verify + ajv", () => {
    const payload = wh.verify(BODY, peerSigned);
    if (!validate(payload)) throw new Error("invalid");
  })
  .add("ours: verify + parseNewPlant", async () => {
    const r = await verify({
      secrets: [SECRET],
      id: "msg_bench",
      timestamp: String(timestamp),
      signature,
      body: BYTES,
      now,
    });
    if (!r.ok) throw new Error(r.message);
    const p = parseNewPlant(BYTES);
    if (!p.ok) throw new Error(p.message);
  })
  .add("peer pipeline: bearer + standardwebhooks + ajv + Set dedup", async () => {
    if (!(await tokens.verify(TOKEN))) throw new Error("token");
    const payload = wh.verify(BODY, peerSigned);
    if (!validate(payload)) throw new Error("invalid");
    remember();
  })
  .add("ours pipeline: createWebhookHandler.handle", async () => {
    const res = await handler.handle({
      method: "POST",
      path: "/plant/webhook",
      headers: (k) => headers[k],
      body: BYTES,
    });
    if (res.status !== 200) throw new Error(res.body);
  });

await bench.run();
const hz = Object.fromEntries(bench.tasks.map((t) => [t.name, t.result.throughput?.mean ?? t.result.hz]));
const names = bench.tasks.map((t) => t.name);
const rows = [
  ["case", "ops/s", "ratio vs peer"],
  [names[0], fmt(hz[names[0]]), "1.00×"],
  [names[1], fmt(hz[names[1]]), `${(hz[names[1]] / hz[names[0]]).toFixed(2)}×`],
  [names[2], fmt(hz[names[2]]), "1.00×"],
  [names[3], fmt(hz[names[3]]), `${(hz[names[3]] / hz[names[2]]).toFixed(2)}×`],
];
const table = rows
  .map((r, i) => `| ${r.join(" | ")} |${i === 0 ? "\n| --- | ---: | ---: |" : ""}`)
  .join("\n");
console.log(table);
const md = `# @plant-store/core benchmarks

Command: \`pnpm build && pnpm --filter @plant-store/core bench\` (tinybench, 1.5 s per case, one run; ratios are
against the peer measured in the same run). Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.

The peer is what a user would write by hand: the \`standardwebhooks\` library (verify + \`JSON.parse\`) and ajv
(draft 2020-12) compiled from the spec's own NewPlant schema. Ours verifies over the raw bytes, then parses with
int64 checks and validates with zod. The pipeline rows add bearer-token verification (the peer uses the same constant-time verifier) and dedup; ours also runs the
path/method/content-type/size checks and builds the response.

${table}
`;
writeFileSync(new URL("../BENCH.md", import.meta.url), md);

function fmt(v) {
  return Math.round(v).toLocaleString("en-US");
}
