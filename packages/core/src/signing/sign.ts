import type { CryptoProvider } from "../crypto/types.js";
import { toBase64 } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { checkBody } from "../options.js";
import { idProblem, signedContent } from "./message-parts.js";
import { parseSecret, parseSecrets } from "./secret.js";

/**
 * What one message signature covers.
 *
 * @example
 * ```ts
 * const message: SignedMessage = { id: "msg_1", timestamp: 1614265330, body: '{"name":"Fern"}' };
 * ```
 */
export interface SignedMessage {
  /** `webhook-id`: the same on every retry; 1 to 256 visible ASCII characters (dots allowed). */
  id: string;
  /** `webhook-timestamp`: unix seconds of this attempt. */
  timestamp: number;
  /** The exact body bytes sent; a string is sent and signed as UTF-8. */
  body: string | Uint8Array;
}

/**
 * Standard Webhooks v1 signature over an explicit crypto implementation; `sign` binds `#crypto`.
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * await signWith(web, { secret, id: "msg_1", timestamp: 1614265330, body: "{}" }); // "v1,…"
 * ```
 */
export async function signWith(
  crypto: CryptoProvider,
  input: SignedMessage & { secret: string },
): Promise<string> {
  const key = parseSecret(input.secret);
  checkBody("sign", input.body);
  return signature(crypto, key, content(input));
}

/**
 * A `webhook-signature` value with one signature per secret, space separated (rotation), over an explicit crypto
 * implementation; `signatureHeader` binds `#crypto`.
 *
 * @example
 * ```ts
 * await signatureHeaderWith(web, { secrets: [oldSecret, newSecret], id, timestamp, body }); // "v1,… v1,…"
 * ```
 */
export async function signatureHeaderWith(
  crypto: CryptoProvider,
  input: SignedMessage & { secrets: readonly string[] },
): Promise<string> {
  const keys = parseSecrets(input.secrets);
  checkBody("signatureHeader", input.body);
  const hmacSync = crypto.hmacSha256Sync;
  if (hmacSync) {
    // node:crypto: one synchronous HMAC per key over `id.timestamp.` and the body, without copying them together.
    const head = signedHead(input);
    return keys.map((key) => `v1,${toBase64(hmacSync(key, head, input.body))}`).join(" ");
  }
  const signed = content(input);
  const signatures = await Promise.all(keys.map((key) => signature(crypto, key, signed)));
  return signatures.join(" ");
}

function content(message: SignedMessage): Uint8Array {
  signedHead(message); // checks the id and timestamp
  return signedContent(message.id, String(message.timestamp), message.body);
}

/** `id.timestamp.` after checking both: what the signature covers before the body. */
function signedHead(message: SignedMessage): string {
  const problem = idProblem(message.id);
  if (problem) throw new PlantStoreError("malformed_id", `Cannot sign with this webhook-id: ${problem}`);
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) {
    throw new PlantStoreError(
      "malformed_timestamp",
      "Cannot sign with this webhook-timestamp: pass unix time in whole seconds, e.g. Math.floor(Date.now() / 1000).",
    );
  }
  return `${message.id}.${message.timestamp}.`;
}

async function signature(crypto: CryptoProvider, key: Uint8Array, signed: Uint8Array): Promise<string> {
  return `v1,${toBase64(await crypto.hmacSha256(key, signed))}`;
}
