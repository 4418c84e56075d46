/**
 * Bearer-token authentication (RFC 6750): header parsing, challenges, `psk_` tokens and a constant-time verifier.
 *
 * @module
 */
import * as platformCrypto from "#crypto";
import { createAuth } from "./create-auth.js";
import type { TokenVerifier } from "./token-verifier.js";

export { type BearerChallengeOptions, bearerChallenge } from "./bearer-challenge.js";
export { type BearerCheck, type BearerCheckOptions, createBearerCheck } from "./bearer-check.js";
export { type Auth, createAuth } from "./create-auth.js";
export { type ParsedAuthorization, parseAuthorization } from "./parse-authorization.js";
export { checkTokenFormat, TOKEN_PREFIX } from "./token-format.js";
export type { TokenVerifier } from "./token-verifier.js";

const auth = createAuth(platformCrypto);

/**
 * Creates a bearer token: `psk_` + 30 random base62 characters + a 6-character base62 CRC-32 of them
 * (GitHub's token layout), so scanners spot leaks and {@link checkTokenFormat} catches typos offline.
 *
 * @example
 * ```ts
 * const token = createToken(); // "psk_" + 36 letters and digits
 * ```
 */
export function createToken(options?: { random?: ((n: number) => Uint8Array) | undefined }): string {
  return auth.createToken(options);
}

/**
 * Hashes a token for configuration at rest: `sha256:<64 hex>`, accepted by {@link createTokenVerifier}.
 * Throws a `PlantStoreError` (`invalid_token`) for a token that could never be presented, e.g. with a line break.
 *
 * @example
 * ```ts
 * await hashToken("psk_…"); // "sha256:3b1f…"
 * ```
 */
export function hashToken(token: string): Promise<string> {
  return auth.hashToken(token);
}

/**
 * Builds a verifier over accepted tokens, each in clear or as `sha256:<64 hex>` (several at once allow rotation).
 * Clear tokens need not be `psk_` tokens (existing ones keep working), but a `psk_` one must have a valid checksum.
 * Throws a `PlantStoreError`
 * (`invalid_token_config`) for an empty list or an entry that can never match; the message never contains it.
 *
 * @example
 * ```ts
 * const verifier = createTokenVerifier([process.env.OLD_TOKEN_HASH!, process.env.NEW_TOKEN_HASH!]);
 * if (!(await verifier.verify(token))) { … answer 401 … }
 * ```
 */
export function createTokenVerifier(accepted: readonly string[]): TokenVerifier {
  return auth.createTokenVerifier(accepted);
}
