/**
 * The crypto primitives core needs, implemented by `node.ts` (node:crypto) and `web.ts` (WebCrypto) and chosen
 * through the `#crypto` import. Signing and auth take one of these, so tests can run both implementations.
 *
 * @example
 * ```ts
 * import * as web from "@plant-store/core/src/crypto/web.ts";
 * const provider: CryptoProvider = web;
 * ```
 */
export interface CryptoProvider {
  readonly implementation: "node" | "web";
  hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
  sha256(data: Uint8Array): Promise<Uint8Array>;
  /**
   * Synchronous HMAC where the platform has one (node:crypto), skipping a promise per call. The MAC covers the
   * parts in order (strings as UTF-8), so callers need not concatenate them first.
   */
  hmacSha256Sync?(key: Uint8Array, ...parts: (Uint8Array | string)[]): Uint8Array;
  /**
   * The same MAC over `head` then `body`, as standard padded base64 (what a `v1,` signature carries), where the
   * platform encodes natively (node:crypto): no bytes object, no encoding in JavaScript.
   */
  hmacSha256Base64Sync?(key: Uint8Array, head: string, body: Uint8Array | string): string;
  /** Synchronous SHA-256 where the platform has one (node:crypto). */
  sha256Sync?(data: Uint8Array | string): Uint8Array;
  randomBytes(length: number): Uint8Array;
  /** Compares in time independent of the contents; `false` on a length mismatch. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** The 32-byte ed25519 public key of a 32-byte private key seed (RFC 8032). */
  ed25519PublicKey(seed: Uint8Array): Promise<Uint8Array>;
  /** The 64-byte ed25519 signature of `data` under a 32-byte private key seed. */
  ed25519Sign(seed: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
  /**
   * Whether `signature` is a valid ed25519 signature of `data` under a 32-byte public key. Imported keys are cached
   * per `Uint8Array` object, so callers that keep their decoded keys import each once.
   */
  ed25519Verify(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): Promise<boolean>;
}
