// One signed New Plant request of the benchmarks: a unique webhook-id, a valid Standard Webhooks signature and the
// bearer token. Shared by the load generators (load.mjs, drive.mjs).
import { createHmac } from "node:crypto";

/** The `i`-th request: `id` is `${prefix}_${i}`, the plant's id `i + 1`; signed with `secret` at `timestamp`. */
export function signedRequest(i, { prefix, token, secret, timestamp }) {
  const id = `${prefix}_${i}`;
  const body = `{"id":${i + 1},"name":"Monstera deliciosa","tag":"tropical"}`;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    body,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${signature}`,
    },
  };
}
