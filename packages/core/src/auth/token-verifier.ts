import type { CryptoProvider } from "../crypto/types.js";
import { utf8Encode } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { type AcceptedToken, parseAcceptedToken } from "./accepted-token.js";

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
  let hashes: Promise<Uint8Array[]> | undefined;
  let resolved: Uint8Array[] | undefined;
  return {
    async verify(token) {
      if (typeof token !== "string" || token === "") return false;
      // No checksum pre-check here: a damaged psk_ token fails the hash comparison anyway, and the CRC-32 over
      // every accepted request cost as much as the SHA-256. (Configured tokens are still checksum-checked.)
      hashes ??= Promise.all(entries.map((entry) => hashOf(crypto, entry)));
      resolved ??= await hashes;
      const expected = resolved;
      const presented = crypto.sha256Sync ? crypto.sha256Sync(token) : await crypto.sha256(utf8Encode(token));
      let matches = 0;
      for (const hash of expected) matches |= crypto.timingSafeEqual(presented, hash) ? 1 : 0;
      return matches === 1;
    },
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
