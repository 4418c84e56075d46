/**
 * Standard Webhooks v1 signing and verification: `whsec_` secrets, `v1,<base64 HMAC-SHA256>` signatures over
 * `${id}.${timestamp}.${body}`, several signatures and secrets for rotation, and a timestamp window.
 *
 * @module
 */
import * as platformCrypto from "#crypto";
import { createSigning } from "./create-signing.js";
import { parseSecrets } from "./secret.js";
import type { SignedMessage } from "./sign.js";
import { type VerifyInput, type VerifyResult, verifyWithKeys } from "./verify.js";

export { createSigning, type Signing } from "./create-signing.js";
export { parseSecret, SECRET_PREFIX } from "./secret.js";
export type { SignedMessage } from "./sign.js";
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
 * Signs one message: `v1,<base64 HMAC-SHA256 over "${id}.${timestamp}.${body}">`, the body bytes exactly as given.
 * Throws a `PlantStoreError` for a bad secret (`invalid_secret`), an id that is not 1 to 256 visible ASCII
 * characters (`malformed_id`; dots are allowed) or a timestamp
 * that is not whole non-negative seconds (`malformed_timestamp`).
 *
 * @example
 * ```ts
 * await sign({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
 *   timestamp: 1614265330, body: '{"test": 2432232314}' });
 * // "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
 * ```
 */
export function sign(input: SignedMessage & { secret: string }): Promise<string> {
  return signing.sign(input);
}

/**
 * The `webhook-signature` header value: one signature per secret, space separated, so receivers holding either
 * the old or the new secret accept the message during rotation.
 *
 * @example
 * ```ts
 * const header = await signatureHeader({ secrets: [oldSecret, newSecret], id, timestamp, body }); // "v1,… v1,…"
 * ```
 */
export function signatureHeader(input: SignedMessage & { secrets: readonly string[] }): Promise<string> {
  return signing.signatureHeader(input);
}

/**
 * Verifies a Standard Webhooks v1 message over its raw body. Entries of other versions are ignored and malformed
 * entries skipped (as the reference library does; a header with no well-formed entry is `malformed_signature`); each secret
 * is tried against each v1 signature without stopping early; the timestamp must lie within `toleranceSeconds`
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
 * Builds a verifier for a fixed set of secrets, decoded once (bad secrets throw here, at configuration time).
 * Used by the receive pipeline so that no request pays for decoding the secrets.
 *
 * @example
 * ```ts
 * const check = createVerifier(["whsec_…"]);
 * const result = await check({ id, timestamp, signature, body });
 * ```
 */
export function createVerifier(
  secrets: readonly string[],
): (input: Omit<VerifyInput, "secrets">) => Promise<VerifyResult> {
  const keys = parseSecrets(secrets);
  return (input) => verifyWithKeys(platformCrypto, keys, input);
}
