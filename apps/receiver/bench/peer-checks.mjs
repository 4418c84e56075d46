// The checks a user would write by hand, shared by the two peers: bearer token (constant-time, on SHA-256
// digests), Standard Webhooks HMAC over the raw body with a timestamp window, JSON.parse, ajv on the spec's NewPlant
// schema, in-memory dedup on webhook-id. `check(headers, body)` returns null (accept) or [status, message].
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { document } from "@plant-store/spec";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Webhook } from "standardwebhooks";
import { z } from "zod";

export function createChecks(token, secret) {
  const tokenDigest = createHash("sha256").update(token).digest();
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const { ajv, validate } = newPlantValidator();
  const seen = new Set();
  return (headers, body) => {
    if (!bearerMatches(headers, tokenDigest)) return [401, "bad token"];
    const id = headers["webhook-id"];
    const ts = headers["webhook-timestamp"];
    if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return [401, "stale"];
    const expected = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest();
    const ok = String(headers["webhook-signature"] ?? "")
      .split(" ")
      .some((s) => {
        const sig = Buffer.from(s.slice(3), "base64");
        return s.startsWith("v1,") && sig.length === expected.length && timingSafeEqual(sig, expected);
      });
    if (!ok) return [401, "bad signature"];
    let payload;
    try {
      payload = JSON.parse(body);
    } catch {
      return [400, "bad json"];
    }
    if (!validate(payload)) return [422, ajv.errorsText(validate.errors)];
    if (!seen.has(id)) seen.add(id);
    return null;
  };
}

/**
 * The same checks as a user of the official `standardwebhooks` package writes them: `Webhook#verify` (timestamp
 * window, HMAC, JSON.parse of the verified body), then the token, ajv and the dedup set. The peer of issue 23's goal.
 */
export function createStandardChecks(token, secret) {
  const { ajv, validate } = newPlantValidator();
  return verifiedChecks(token, secret, (payload) =>
    validate(payload) ? null : ajv.errorsText(validate.errors),
  );
}

/**
 * The outside harness's peer (issue 48): `standardwebhooks`' `verify` on the raw body, the token, zod 4's
 * `z.looseObject` for the New Plant, and the dedup set.
 */
export function createZodChecks(token, secret) {
  const NewPlant = z.looseObject({ id: z.int(), name: z.string(), tag: z.string().optional() });
  return verifiedChecks(token, secret, (payload) => {
    const parsed = NewPlant.safeParse(payload);
    return parsed.success ? null : parsed.error.message;
  });
}

/** The token, `standardwebhooks`' `verify` on the raw body, `problemOf(payload)` (a message or null), dedup. */
function verifiedChecks(token, secret, problemOf) {
  const tokenDigest = createHash("sha256").update(token).digest();
  const webhook = new Webhook(secret);
  const seen = new Set();
  return (headers, body) => {
    if (!bearerMatches(headers, tokenDigest)) return [401, "bad token"];
    let payload;
    try {
      payload = webhook.verify(body, headers);
    } catch (error) {
      return [error instanceof SyntaxError ? 400 : 401, error.message];
    }
    const problem = problemOf(payload);
    if (problem !== null) return [422, problem];
    const id = headers["webhook-id"];
    if (!seen.has(id)) seen.add(id);
    return null;
  };
}

function bearerMatches(headers, tokenDigest) {
  const auth = headers.authorization ?? "";
  const presented = createHash("sha256").update(auth.slice(7)).digest();
  return auth.startsWith("Bearer ") && timingSafeEqual(presented, tokenDigest);
}

function newPlantValidator() {
  const ajv = new Ajv2020();
  ajv.addKeyword({ keyword: "components" });
  ajv.addFormat("int64", { type: "number", validate: (v) => Number.isSafeInteger(v) });
  ajv.addSchema({ $id: "spec", components: { schemas: document.components.schemas } });
  return { ajv, validate: ajv.getSchema("spec#/components/schemas/NewPlant") };
}
