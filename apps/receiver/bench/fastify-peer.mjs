// The peer a user would write by hand: Fastify + ajv doing the same checks as our receiver — bearer token
// (constant-time, on SHA-256 digests), Standard Webhooks HMAC over the raw body with a timestamp window,
// JSON.parse, ajv on the spec's NewPlant schema, in-memory dedup on webhook-id, then 200.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { document } from "@plant-store/spec";
import { Ajv2020 } from "ajv/dist/2020.js";
import Fastify from "fastify";

const [token, secret] = process.argv.slice(2);
const tokenDigest = createHash("sha256").update(token).digest();
const key = Buffer.from(secret.slice("whsec_".length), "base64");
const ajv = new Ajv2020();
ajv.addKeyword({ keyword: "components" });
ajv.addFormat("int64", { type: "number", validate: (v) => Number.isSafeInteger(v) });
ajv.addSchema({ $id: "spec", components: { schemas: document.components.schemas } });
const validate = ajv.getSchema("spec#/components/schemas/NewPlant");
const seen = new Set();

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
app.post("/plant/webhook", async (request, reply) => {
  const auth = request.headers.authorization ?? "";
  const presented = createHash("sha256").update(auth.slice(7)).digest();
  if (!auth.startsWith("Bearer ") || !timingSafeEqual(presented, tokenDigest)) {
    return reply.code(401).send({ error: 401, message: "bad token" });
  }
  const id = request.headers["webhook-id"];
  const ts = request.headers["webhook-timestamp"];
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300)
    return reply.code(401).send({ error: 401, message: "stale" });
  const expected = createHmac("sha256", key).update(`${id}.${ts}.`).update(request.body).digest();
  const ok = String(request.headers["webhook-signature"] ?? "")
    .split(" ")
    .some((s) => {
      const sig = Buffer.from(s.slice(3), "base64");
      return s.startsWith("v1,") && sig.length === expected.length && timingSafeEqual(sig, expected);
    });
  if (!ok) return reply.code(401).send({ error: 401, message: "bad signature" });
  let payload;
  try {
    payload = JSON.parse(request.body);
  } catch {
    return reply.code(400).send({ error: 400, message: "bad json" });
  }
  if (!validate(payload))
    return reply.code(422).send({ error: 422, message: ajv.errorsText(validate.errors) });
  if (!seen.has(id)) seen.add(id);
  return reply.code(200).send();
});
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
