import type { CryptoProvider } from "../crypto/types.js";
import { toBase64 } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { checkBody } from "../options.js";
import { parseKeys, signingSeed } from "./keys.js";
import { idProblem, parseTimestamp, signedContent } from "./message-parts.js";
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
  /**
   * `webhook-timestamp`: unix seconds of this attempt, as a number or as the header text (digits only), so a
   * header read back can be passed unchanged.
   */
  timestamp: number | string;
  /** The exact body bytes sent; a string is sent and signed as UTF-8. */
  body: string | Uint8Array;
}

/**
 * What to sign one message with: a `whsec_` secret (`v1`, HMAC-SHA256) or a `whsk_` private key (`v1a`, ed25519).
 *
 * @example
 * ```ts
 * const withKey: SignKey = { privateKey: "whsk_…" };
 * ```
 */
export type SignKey = { secret: string; privateKey?: undefined } | { privateKey: string; secret?: undefined };

/**
 * One Standard Webhooks signature (`v1,…` for a secret, `v1a,…` for a private key) over an explicit crypto
 * implementation; `sign` binds `#crypto`.
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * await signWith(web, { secret, id: "msg_1", timestamp: 1614265330, body: "{}" }); // "v1,…"
 * ```
 */
export async function signWith(crypto: CryptoProvider, input: SignedMessage & SignKey): Promise<string> {
  if (typeof input.privateKey === "string" && input.secret === undefined) {
    const seed = await signingSeed(crypto, input.privateKey);
    checkBody("sign", input.body);
    return `v1a,${toBase64(await crypto.ed25519Sign(seed, content(input)))}`;
  }
  const key = parseSecret(input.secret as string);
  checkBody("sign", input.body);
  return signature(crypto, key, content(input));
}

/**
 * Input of `signatureHeader`: the message, and the `whsec_` secrets and/or `whsk_` private keys to sign it with.
 *
 * @example
 * ```ts
 * const input: SignatureHeaderInput = { secrets: ["whsec_…"], privateKeys: ["whsk_…"], id, timestamp, body };
 * ```
 */
export type SignatureHeaderInput = SignedMessage & {
  /** `whsec_` secrets: one `v1,` signature each. */
  secrets?: readonly string[] | undefined;
  /** `whsk_` private keys: one `v1a,` signature each (after the `v1` ones). */
  privateKeys?: readonly string[] | undefined;
};

/**
 * A `webhook-signature` value with one signature per secret (`v1`) and per private key (`v1a`), space separated
 * (rotation, or a migration between the two), over an explicit crypto implementation; `signatureHeader` binds
 * `#crypto`. At least one secret or key is required; `decode` turns the secrets into HMAC keys (a caller that
 * signs with the same secrets again passes one that keeps them).
 *
 * @example
 * ```ts
 * await signatureHeaderWith(web, { secrets: [oldSecret, newSecret], id, timestamp, body }); // "v1,… v1,…"
 * ```
 */
export function signatureHeaderWith(
  crypto: CryptoProvider,
  input: SignatureHeaderInput,
  decode: (secrets: readonly string[]) => Uint8Array[] = parseSecrets,
): Promise<string> {
  return signatureHeaderFrom(crypto, input, decode);
}

async function signatureHeaderFrom(
  crypto: CryptoProvider,
  input: SignatureHeaderInput,
  decode: (secrets: readonly string[]) => Uint8Array[],
): Promise<string> {
  const privateKeys = input.privateKeys ?? [];
  const secrets = input.secrets ?? (privateKeys.length > 0 ? [] : undefined);
  // With no private key, decoding refuses a missing or empty list: there would be nothing to sign with.
  const keys =
    privateKeys.length > 0 && Array.isArray(secrets) && secrets.length === 0
      ? []
      : decode(secrets as readonly string[]);
  const seeds = await Promise.all(
    parseKeys(privateKeys, (key) => key, "Private key").map((key) => signingSeed(crypto, key)),
  );
  checkBody("signatureHeader", input.body);
  const hmacSync = crypto.hmacSha256Base64Sync;
  let symmetric: string[];
  let signed: Uint8Array | null = null;
  if (hmacSync) {
    // node:crypto: one synchronous HMAC per key over `id.timestamp.` and the body, without copying them together,
    // encoded to base64 natively.
    const head = signedHead(input);
    symmetric = keys.map((key) => `v1,${hmacSync(key, head, input.body)}`);
  } else {
    const message = content(input);
    signed = message;
    symmetric = await Promise.all(keys.map((key) => signature(crypto, key, message)));
  }
  if (seeds.length === 0) return symmetric.join(" ");
  const message = signed ?? content(input);
  const asymmetric = await Promise.all(
    seeds.map(async (seed) => `v1a,${toBase64(await crypto.ed25519Sign(seed, message))}`),
  );
  return [...symmetric, ...asymmetric].join(" ");
}

function content(message: SignedMessage): Uint8Array {
  return signedContent(message.id, signedHead(message).slice(message.id.length + 1, -1), message.body);
}

/** `id.timestamp.` after checking both: what the signature covers before the body. */
function signedHead(message: SignedMessage): string {
  const problem = idProblem(message.id);
  if (problem) throw new PlantStoreError("malformed_id", `Cannot sign with this webhook-id: ${problem}`);
  const { timestamp } = message;
  const valid =
    typeof timestamp === "string"
      ? parseTimestamp(timestamp) !== null
      : Number.isSafeInteger(timestamp) && timestamp >= 0;
  if (!valid) {
    throw new PlantStoreError(
      "malformed_timestamp",
      "Cannot sign with this webhook-timestamp: pass unix time in whole seconds (a number, or its digits as a string), e.g. Math.floor(Date.now() / 1000).",
    );
  }
  return `${message.id}.${timestamp}.`;
}

async function signature(crypto: CryptoProvider, key: Uint8Array, signed: Uint8Array): Promise<string> {
  return `v1,${toBase64(await crypto.hmacSha256(key, signed))}`;
}
