import type { CryptoProvider } from "../crypto/types.js";
import { hashTokenWith } from "./hash-token.js";
import { generateToken } from "./token-format.js";
import { buildTokenVerifier, type TokenVerifier } from "./token-verifier.js";

/**
 * The token functions that need crypto, bound to one implementation.
 *
 * @example
 * ```ts
 * const auth: Auth = createAuth(web);
 * ```
 */
export interface Auth {
  /** See {@link createToken}. */
  createToken(options?: { random?: ((n: number) => Uint8Array) | undefined }): string;
  /** See {@link hashToken}. */
  hashToken(token: string): Promise<string>;
  /** See {@link createTokenVerifier}. */
  createTokenVerifier(accepted: readonly string[]): TokenVerifier;
}

/**
 * Binds the token functions to a crypto implementation. The package exports them bound to `#crypto`; use this to
 * run on another implementation (tests run both `node` and `web`).
 *
 * @example
 * ```ts
 * import * as web from "@plant-store/core/src/crypto/web.ts";
 * const { createTokenVerifier } = createAuth(web);
 * ```
 */
export function createAuth(crypto: CryptoProvider): Auth {
  return {
    createToken: (options) => generateToken(options?.random ?? crypto.randomBytes),
    hashToken: (token) => hashTokenWith(crypto, token),
    createTokenVerifier: (accepted) => buildTokenVerifier(crypto, accepted),
  };
}
