import type { CryptoProvider } from "../crypto/types.js";
import { createKept } from "../kept.js";
import { generateKeyPair, type KeyPair, publicKeyOfWith } from "./keys.js";
import { generateSecret, SIGNING_KEYS_KEPT, signingKeys } from "./secret.js";
import {
  type SignatureHeaderInput,
  type SignedMessage,
  type SignKey,
  signatureHeaderWith,
  signWith,
} from "./sign.js";
import { type VerifyInput, type VerifyResult, verifyWith } from "./verify.js";

/**
 * The signing functions that need crypto, bound to one implementation.
 *
 * @example
 * ```ts
 * const signing: Signing = createSigning(web);
 * ```
 */
export interface Signing {
  /** See {@link createSecret}. */
  createSecret(options?: { random?: ((n: number) => Uint8Array) | undefined }): string;
  /** See {@link createKeyPair}. */
  createKeyPair(options?: { random?: ((n: number) => Uint8Array) | undefined }): Promise<KeyPair>;
  /** See {@link publicKeyOf}. */
  publicKeyOf(privateKey: string): Promise<string>;
  /** See {@link sign}. */
  sign(input: SignedMessage & SignKey): Promise<string>;
  /** See {@link signatureHeader}. */
  signatureHeader(input: SignatureHeaderInput): Promise<string>;
  /** See {@link verify}. */
  verify(input: VerifyInput): Promise<VerifyResult>;
}

/**
 * Binds the Standard Webhooks functions to a crypto implementation. The package exports them bound to `#crypto`;
 * use this to run on another implementation (tests run both `node` and `web`).
 *
 * @example
 * ```ts
 * import * as web from "@plant-store/core/src/crypto/web.ts";
 * const { sign, verify } = createSigning(web);
 * ```
 */
export function createSigning(crypto: CryptoProvider): Signing {
  // Per instance, not per module: the decoded keys live as long as the functions that use them.
  const kept = createKept<Uint8Array>(SIGNING_KEYS_KEPT);
  const decode = (secrets: readonly string[]) => signingKeys(secrets, kept);
  return {
    createSecret: (options) => generateSecret(options?.random ?? crypto.randomBytes),
    createKeyPair: (options) => generateKeyPair(crypto, options?.random ?? crypto.randomBytes),
    publicKeyOf: (privateKey) => publicKeyOfWith(crypto, privateKey),
    sign: (input) => signWith(crypto, input),
    signatureHeader: (input) => signatureHeaderWith(crypto, input, decode),
    verify: (input) => verifyWith(crypto, input),
  };
}
