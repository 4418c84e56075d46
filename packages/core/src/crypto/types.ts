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
   * Synchronous HMAC where the platform has one (node:crypto); hot paths use it to skip a promise per call. The
   * MAC covers the parts in order (strings as UTF-8), so callers need not concatenate them first.
   */
  hmacSha256Sync?(key: Uint8Array, ...parts: (Uint8Array | string)[]): Uint8Array;
  /** Synchronous SHA-256 where the platform has one (node:crypto). */
  sha256Sync?(data: Uint8Array | string): Uint8Array;
  randomBytes(length: number): Uint8Array;
  /** Compares in time independent of the contents; `false` on a length mismatch. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}
