import type { CryptoProvider } from "../crypto/types.js";
import { utf8Encode } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { type AcceptedToken, parseAcceptedToken } from "./accepted-token.js";
import { checkTokenFormat, TOKEN_PREFIX } from "./token-format.js";

/**
 * Checks a presented bearer token against the configured ones.
 *
 * @example
 * ```ts
 * const verifier: TokenVerifier = createTokenVerifier(["sha256:…"]);
 * await verifier.verify("psk_…"); // true or false
 * ```
 */
export interface TokenVerifier {
  /** `true` when the token is one of the accepted ones; never says which. */
  verify(token: string): Promise<boolean>;
  /** The same answer without a promise, where the platform hashes synchronously (node:crypto); else absent. */
  verifySync?(token: string): boolean;
}

/**
 * {@link TokenVerifier} over an explicit crypto implementation; `createTokenVerifier` binds `#crypto`.
 * The presented token is hashed once and compared with every accepted hash in constant time, without stopping
 * at a match, so timing reveals neither whether nor which entry matched.
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * const verifier = buildTokenVerifier(web, ["psk_…", "sha256:…"]);
 * ```
 */
export function buildTokenVerifier(crypto: CryptoProvider, accepted: readonly string[]): TokenVerifier {
  const entries = parseAcceptedList(accepted);
  const sha256Sync = crypto.sha256Sync;
  let hashes: Promise<Uint8Array[]> | undefined;
  // With a synchronous SHA-256 the accepted hashes are computed once, now, and checks need no promise.
  let resolved: Uint8Array[] | undefined = sha256Sync
    ? entries.map((entry) => (entry.kind === "hash" ? entry.hash : sha256Sync(entry.token)))
    : undefined;
  const compare = (presented: Uint8Array, expected: readonly Uint8Array[]): boolean => {
    let matches = 0;
    for (const hash of expected) matches |= crypto.timingSafeEqual(presented, hash) ? 1 : 0;
    return matches === 1;
  };
  // A damaged psk_ token cannot be one we issued; the checksum is public, so rejecting early leaks nothing.
  const plausible = (token: unknown): token is string =>
    typeof token === "string" &&
    token !== "" &&
    (!token.startsWith(TOKEN_PREFIX) || checkTokenFormat(token).ok);
  return {
    async verify(token) {
      if (!plausible(token)) return false;
      if (!resolved) {
        hashes ??= Promise.all(entries.map((entry) => hashOf(crypto, entry)));
        resolved = await hashes;
      }
      const expected = resolved;
      const presented = sha256Sync ? sha256Sync(token) : await crypto.sha256(utf8Encode(token));
      return compare(presented, expected);
    },
    ...(sha256Sync && {
      verifySync(token: string) {
        if (!plausible(token)) return false;
        return compare(sha256Sync(token), resolved as Uint8Array[]);
      },
    }),
  };
}

function parseAcceptedList(accepted: readonly string[]): AcceptedToken[] {
  if (!Array.isArray(accepted) || accepted.length === 0) {
    throw new PlantStoreError(
      "invalid_token_config",
      "No accepted bearer tokens are configured. Configure at least one token, in clear or as 'sha256:<64 hex>' from hashToken().",
    );
  }
  return accepted.map((value: unknown, index) => {
    const parsed = parseAcceptedToken(value);
    if (parsed.ok) return parsed.entry;
    throw new PlantStoreError(
      "invalid_token_config",
      `Accepted token ${index + 1} of ${accepted.length} cannot work: ${parsed.problem}`,
    );
  });
}

async function hashOf(crypto: CryptoProvider, entry: AcceptedToken): Promise<Uint8Array> {
  return entry.kind === "hash" ? entry.hash : crypto.sha256(utf8Encode(entry.token));
}
