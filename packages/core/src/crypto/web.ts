/**
 * Crypto primitives on WebCrypto only (`globalThis.crypto`), for Deno, Bun, browsers and edge runtimes.
 * Imported as `#crypto` wherever the `node` condition does not apply.
 *
 * @module
 */
import { PlantStoreError } from "../errors.js";

// getRandomValues refuses more than 65536 bytes per call.
const MAX_RANDOM_CHUNK = 65_536;
const SHA256_BLOCK_BYTES = 64;

/**
 * Which implementation `#crypto` resolved to.
 *
 * @example
 * ```ts
 * import { implementation } from "#crypto";
 * implementation; // "web" on Deno, Bun or an edge runtime
 * ```
 */
export const implementation = "web" as "node" | "web";

/**
 * HMAC-SHA256 of `data` under `key`.
 *
 * @example
 * ```ts
 * const mac = await hmacSha256(utf8Encode("key"), utf8Encode("message")); // 32 bytes
 * ```
 */
export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const subtle = webCrypto().subtle;
  // WebCrypto refuses empty HMAC keys; HMAC zero-pads keys to the 64-byte block, so this is the same MAC.
  const raw = key.length === 0 ? new Uint8Array(SHA256_BLOCK_BYTES) : key;
  const cryptoKey = await subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", cryptoKey, data));
}

/**
 * SHA-256 of `data`.
 *
 * @example
 * ```ts
 * toHex(await sha256(utf8Encode("abc"))); // "ba7816bf…15ad"
 * ```
 */
export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await webCrypto().subtle.digest("SHA-256", data));
}

/**
 * `length` bytes from the runtime's CSPRNG.
 *
 * @example
 * ```ts
 * randomBytes(32).length; // 32
 * ```
 */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  const crypto = webCrypto();
  for (let offset = 0; offset < length; offset += MAX_RANDOM_CHUNK) {
    crypto.getRandomValues(out.subarray(offset, offset + MAX_RANDOM_CHUNK));
  }
  return out;
}

/**
 * Compares two byte arrays in time independent of their contents; `false` when the lengths differ.
 *
 * @example
 * ```ts
 * timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])); // true
 * ```
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

function webCrypto(): typeof globalThis.crypto {
  const crypto = globalThis.crypto;
  if (!crypto?.subtle) {
    throw new PlantStoreError(
      "crypto_unavailable",
      "WebCrypto (globalThis.crypto.subtle) is not available in this runtime. Use a runtime with WebCrypto, or a secure context in browsers.",
    );
  }
  return crypto;
}
