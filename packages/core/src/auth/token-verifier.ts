import { sameText } from "../constant-time.js";
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
  /**
   * The same verdict without a promise when it can be reached synchronously (a clear token, or `sha256:` entries on
   * a runtime with synchronous SHA-256); optional. The webhook pipeline uses it when there, `verify` otherwise. A
   * verifier made by spreading a built-in one and replacing `verify` is asked through its `verify`.
   */
  verifyNow?(token: string): boolean | Promise<boolean>;
}

/**
 * {@link TokenVerifier} over an explicit crypto implementation; `createTokenVerifier` binds `#crypto`.
 * A presented token is compared with every accepted one in constant time, without stopping at a match, so timing
 * reveals neither whether nor which entry matched: with each clear token character by character (a bearer token
 * is ASCII), with each `sha256:` entry through the SHA-256 of the presented token, computed only when such an
 * entry is configured.
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * const verifier = buildTokenVerifier(web, ["psk_…", "sha256:…"]);
 * ```
 */
export function buildTokenVerifier(crypto: CryptoProvider, accepted: readonly string[]): TokenVerifier {
  const entries = parseAcceptedList(accepted);
  const clear = entries.flatMap((entry) => (entry.kind === "clear" ? [entry.token] : []));
  const hashes = entries.flatMap((entry) => (entry.kind === "hash" ? [entry.hash] : []));
  const judge = (token: string, presented: Uint8Array | null): boolean => {
    // No checksum pre-check here: a damaged psk_ token fails the comparison anyway, and a CRC-32 over every
    // accepted request would cost more than the comparison. (Configured tokens are still checksum-checked.)
    let matches = 0;
    for (const expected of clear) matches |= sameText(token, expected);
    if (presented !== null) {
      for (const hash of hashes) matches |= crypto.timingSafeEqual(presented, hash) ? 1 : 0;
    }
    return matches === 1;
  };
  const verifyNow = (token: string): boolean | Promise<boolean> => {
    if (typeof token !== "string" || token === "") return false;
    if (hashes.length === 0) return judge(token, null);
    if (crypto.sha256Sync) return judge(token, crypto.sha256Sync(token));
    return crypto.sha256(utf8Encode(token)).then((presented) => judge(token, presented));
  };
  const verify = async (token: string) => verifyNow(token);
  pairedVerify.set(verifyNow, verify);
  return { verify, verifyNow };
}

/** Each built-in `verifyNow` with the `verify` it answers for. */
const pairedVerify = new WeakMap<(token: string) => boolean | Promise<boolean>, TokenVerifier["verify"]>();

/**
 * The synchronous check to use for `verifier`, or undefined to call `verify`. A built-in `verifyNow` counts only
 * beside its own `verify`: a verifier spread from a built-in one with `verify` replaced (a revocation check added,
 * say) must be asked through its `verify`, or the added check would be skipped.
 *
 * @example
 * ```ts
 * const now = verifyNowOf(verifier);
 * const accepted = now ? now(token) : verifier.verify(token);
 * ```
 */
export function verifyNowOf(verifier: TokenVerifier): TokenVerifier["verifyNow"] {
  const now = verifier.verifyNow;
  if (typeof now !== "function") return undefined;
  const paired = pairedVerify.get(now);
  return paired === undefined || paired === verifier.verify ? now : undefined;
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
