/**
 * Crypto primitives on WebCrypto only (`globalThis.crypto`), for Deno, Bun, browsers and edge runtimes.
 * Imported as `#crypto` wherever the `node` condition does not apply.
 *
 * @module
 */
import { fromBase64 } from "../encoding.js";
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

// The PKCS #8 wrapper of a raw ed25519 seed (RFC 8410): WebCrypto imports private keys only in this form or as JWK.
const PKCS8_ED25519_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];
const ED25519 = { name: "Ed25519" } as const;
type CryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
const privateKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
const publicKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/**
 * The 32-byte ed25519 public key of a 32-byte seed.
 *
 * @example
 * ```ts
 * (await ed25519PublicKey(randomBytes(32))).length; // 32
 * ```
 */
export async function ed25519PublicKey(seed: Uint8Array): Promise<Uint8Array> {
  const jwk = await webCrypto().subtle.exportKey("jwk", await privateKey(seed, true));
  // JWK members are unpadded base64url; 32 bytes are 43 characters plus one "=".
  const publicKey =
    typeof jwk.x === "string" ? fromBase64(`${jwk.x.replace(/-/g, "+").replace(/_/g, "/")}=`) : null;
  if (publicKey?.length !== 32) throw unsupported("exporting an ed25519 public key");
  return publicKey;
}

/**
 * The 64-byte ed25519 signature of `data` under a 32-byte seed.
 *
 * @example
 * ```ts
 * (await ed25519Sign(seed, utf8Encode("message"))).length; // 64
 * ```
 */
export async function ed25519Sign(seed: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await webCrypto().subtle.sign(ED25519, await privateKey(seed, false), data));
}

/**
 * Whether `signature` is a valid ed25519 signature of `data` under a 32-byte public key.
 *
 * @example
 * ```ts
 * await ed25519Verify(publicKey, data, await ed25519Sign(seed, data)); // true
 * ```
 */
export async function ed25519Verify(
  publicKey: Uint8Array,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  let key = publicKeys.get(publicKey);
  if (!key) {
    key = importEd25519(() => webCrypto().subtle.importKey("raw", publicKey, ED25519, false, ["verify"]));
    publicKeys.set(publicKey, key);
  }
  return webCrypto().subtle.verify(ED25519, await key, signature, data);
}

function privateKey(seed: Uint8Array, extractable: boolean): Promise<CryptoKey> {
  // Only the signing key is cached; exporting the public key imports an extractable copy once.
  const cached = extractable ? undefined : privateKeys.get(seed);
  if (cached) return cached;
  const pkcs8 = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, PKCS8_ED25519_PREFIX.length);
  const key = importEd25519(() =>
    webCrypto().subtle.importKey("pkcs8", pkcs8, ED25519, extractable, ["sign"]),
  );
  if (!extractable) privateKeys.set(seed, key);
  return key;
}

async function importEd25519(importKey: () => Promise<CryptoKey>): Promise<CryptoKey> {
  try {
    return await importKey();
  } catch (error) {
    // A runtime without Ed25519 in WebCrypto refuses the algorithm name; say so instead of a DOMException.
    if (error instanceof Error && error.name === "NotSupportedError") throw unsupported("ed25519 keys");
    throw error;
  }
}

function unsupported(what: string): PlantStoreError {
  return new PlantStoreError(
    "crypto_unavailable",
    `This runtime's WebCrypto does not support ${what} (Ed25519), needed for v1a signatures. Use a runtime with WebCrypto Ed25519 (Node.js 20+, Deno, Bun, Cloudflare Workers), or v1 (HMAC) secrets.`,
  );
}
