/**
 * Standard Webhooks signing and verification: `whsec_` secrets with `v1,<base64 HMAC-SHA256>` signatures and
 * `whsk_`/`whpk_` ed25519 key pairs with `v1a,<base64 ed25519>` signatures, over `${id}.${timestamp}.${body}`;
 * several signatures, secrets and keys for rotation, and a timestamp window.
 *
 * @module
 */
import * as platformCrypto from "#crypto";
import { createSigning } from "./create-signing.js";
import type { KeyPair } from "./keys.js";
import type { SignatureHeaderInput, SignedMessage, SignKey } from "./sign.js";
import { parseVerifierKeys, type VerifyInput, type VerifyResult, verifyWithKeys } from "./verify.js";

export { createSigning, type Signing } from "./create-signing.js";
export {
  type KeyPair,
  PRIVATE_KEY_PREFIX,
  PUBLIC_KEY_PREFIX,
  parsePrivateKey,
  parsePublicKey,
} from "./keys.js";
export { parseSecret, SECRET_PREFIX } from "./secret.js";
export type { SignatureHeaderInput, SignedMessage, SignKey } from "./sign.js";
export type { VerifyFailure, VerifyInput, VerifyResult } from "./verify.js";

const signing = createSigning(platformCrypto);

/**
 * Creates a signing secret: `whsec_` + base64 of 32 random bytes.
 *
 * @example
 * ```ts
 * const secret = createSecret(); // "whsec_…" (44 base64 characters)
 * ```
 */
export function createSecret(options?: { random?: ((n: number) => Uint8Array) | undefined }): string {
  return signing.createSecret(options);
}

/**
 * Creates an ed25519 key pair for `v1a` signatures: `whsk_` private key (sender) and `whpk_` public key (receivers).
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = await createKeyPair(); // "whsk_…", "whpk_…"
 * ```
 */
export function createKeyPair(options?: {
  random?: ((n: number) => Uint8Array) | undefined;
}): Promise<KeyPair> {
  return signing.createKeyPair(options);
}

/**
 * The `whpk_` public key of a `whsk_` private key (throws `invalid_key` for a bad one).
 *
 * @example
 * ```ts
 * await publicKeyOf("whsk_…"); // "whpk_…"
 * ```
 */
export function publicKeyOf(privateKey: string): Promise<string> {
  return signing.publicKeyOf(privateKey);
}

/**
 * Signs one message: `v1,<base64 HMAC-SHA256>` with a `secret`, or `v1a,<base64 ed25519>` with a `privateKey`,
 * over `${id}.${timestamp}.${body}`, the body bytes exactly as given. Throws a `PlantStoreError` for a bad secret
 * (`invalid_secret`) or key (`invalid_key`), an id that is not 1 to 256 visible ASCII characters (`malformed_id`;
 * dots are allowed) or a timestamp that is not whole non-negative seconds (`malformed_timestamp`; a number or its
 * digits).
 *
 * @example
 * ```ts
 * await sign({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
 *   timestamp: 1614265330, body: '{"test": 2432232314}' });
 * // "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
 * ```
 */
export function sign(input: SignedMessage & SignKey): Promise<string> {
  return signing.sign(input);
}

/**
 * The `webhook-signature` header value: one `v1` signature per secret and one `v1a` signature per private key,
 * space separated, so receivers holding either the old or the new secret or key accept the message during
 * rotation, and receivers of either kind during a migration from secrets to keys. The secrets' decoded keys are
 * kept between calls (a bounded set, least recently used dropped first), since a sender signs every attempt of a
 * subscription with the same secrets.
 *
 * @example
 * ```ts
 * const header = await signatureHeader({ secrets: [oldSecret, newSecret], id, timestamp, body }); // "v1,… v1,…"
 * await signatureHeader({ secrets: [secret], privateKeys: ["whsk_…"], id, timestamp, body }); // "v1,… v1a,…"
 * ```
 */
export function signatureHeader(input: SignatureHeaderInput): Promise<string> {
  return signing.signatureHeader(input);
}

/**
 * Verifies a Standard Webhooks message over its raw body: `v1` signatures against `secrets`, `v1a` against
 * `publicKeys` (give either or both). Entries of versions it holds no key for are ignored and malformed entries
 * skipped (as the reference library does; a header with no well-formed entry is `malformed_signature`); each secret
 * is tried against each v1 signature without stopping early; the timestamp (the header text, or a number) must lie within `toleranceSeconds`
 * (default 300) of `now` in both directions. Failures come back as a result; only bad configuration throws.
 *
 * @example
 * ```ts
 * const result = await verify({
 *   secrets: [process.env.PLANT_STORE_WEBHOOK_SECRET!],
 *   id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], signature: headers["webhook-signature"],
 *   body: rawBody,
 * });
 * if (!result.ok) console.log(result.code, result.message);
 * ```
 */
export function verify(input: VerifyInput): Promise<VerifyResult> {
  return signing.verify(input);
}

/**
 * Builds a verifier for a fixed set of secrets and/or public keys, decoded once (bad ones throw here, at
 * configuration time), so that no request pays for decoding them. The verdict comes back as is when it is reached
 * before the full comparison (the usual valid `v1` request on Node, and every refusal the headers decide), as a
 * promise otherwise: `await` it either way.
 *
 * @example
 * ```ts
 * const check = createVerifier(["whsec_…"]);
 * const both = createVerifier({ secrets: ["whsec_…"], publicKeys: ["whpk_…"] });
 * const result = await check({ id, timestamp, signature, body });
 * ```
 */
export function createVerifier(
  keys:
    | readonly string[]
    | { secrets?: readonly string[] | undefined; publicKeys?: readonly string[] | undefined },
): Verifier {
  const decoded = parseVerifierKeys(
    Array.isArray(keys) ? { secrets: keys } : (keys as { secrets?: readonly string[] }),
  );
  return (input) => verifyWithKeys(platformCrypto, decoded, input);
}

/**
 * A verifier built by {@link createVerifier}: a message's headers and body in, the verdict out.
 *
 * @example
 * ```ts
 * const check: Verifier = createVerifier({ secrets: ["whsec_…"] });
 * ```
 */
export type Verifier = (
  input: Omit<VerifyInput, "secrets" | "publicKeys">,
) => VerifyResult | Promise<VerifyResult>;
