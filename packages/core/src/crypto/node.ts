/**
 * Crypto primitives on `node:crypto`: synchronous HMAC and hashing (wrapped in promises to share the WebCrypto
 * signature), much faster on Node than `crypto.subtle`. Imported as `#crypto` under the `node` condition.
 *
 * @module
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  hash,
  type KeyObject,
  sign as nodeSign,
  timingSafeEqual as nodeTimingSafeEqual,
  verify as nodeVerify,
  randomFillSync,
} from "node:crypto";

/**
 * Which implementation `#crypto` resolved to.
 *
 * @example
 * ```ts
 * import { implementation } from "#crypto";
 * implementation; // "node" on Node.js
 * ```
 */
export const implementation = "node" as "node" | "web";

/**
 * HMAC-SHA256 of `data` under `key`.
 *
 * @example
 * ```ts
 * const mac = await hmacSha256(utf8Encode("key"), utf8Encode("message")); // 32 bytes
 * ```
 */
export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  return hmacSha256Sync(key, data);
}

/**
 * HMAC-SHA256, synchronously (node:crypto only).
 *
 * @example
 * ```ts
 * hmacSha256Sync(utf8Encode("key"), utf8Encode("message")).length; // 32
 * ```
 */
export function hmacSha256Sync(key: Uint8Array, ...parts: (Uint8Array | string)[]): Uint8Array {
  // Raw key bytes: measured as fast as a cached KeyObject (createSecretKey per call would double the cost).
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return plain(mac.digest());
}

/**
 * HMAC-SHA256 over `head` then `body` (a string as UTF-8), synchronously, as standard padded base64 (node:crypto
 * only). `key` is read once and its pads kept: pass the same bytes, unchanged, for every message of a secret.
 *
 * RFC 2104 from two one-shot `crypto.hash` calls: SHA-256(K⊕opad ‖ SHA-256(K⊕ipad ‖ head ‖ body)), with the padded
 * keys computed once per key. `createHmac` builds an Hmac stream object, fetches the digest from OpenSSL's providers
 * and hashes the key pads again on every call (core's BENCH.md has the comparison). Tested against `createHmac` on
 * any key, head and body.
 *
 * @example
 * ```ts
 * hmacSha256Base64Sync(utf8Encode("key"), "msg_1.1700000000.", '{"id":1}').length; // 44
 * ```
 */
export function hmacSha256Base64Sync(key: Uint8Array, head: string, body: Uint8Array | string): string {
  const { inner, outer } = padsOf(key);
  const headBytes = Buffer.byteLength(head);
  const bodyBytes = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  const message = Buffer.allocUnsafe(SHA256_BLOCK + headBytes + bodyBytes);
  message.set(inner, 0);
  message.write(head, SHA256_BLOCK, "utf8");
  if (typeof body === "string") message.write(body, SHA256_BLOCK + headBytes, "utf8");
  else message.set(body, SHA256_BLOCK + headBytes);
  // The inner digest as a "binary" (latin1) string, one char per byte: a Buffer result costs more than the hash.
  outer.write(hash("sha256", message, "binary"), SHA256_BLOCK, "binary");
  return hash("sha256", outer, "base64");
}

const SHA256_BLOCK = 64;

/** The key's inner pad (K⊕0x36…) and a buffer holding its outer pad (K⊕0x5c…) followed by room for a digest. */
interface HmacPads {
  inner: Uint8Array;
  outer: Buffer;
}

const padsByKey = new WeakMap<Uint8Array, HmacPads>();

function padsOf(key: Uint8Array): HmacPads {
  let pads = padsByKey.get(key);
  if (pads) return pads;
  // RFC 2104 §2: a key longer than the block is hashed first; a shorter one is padded with zeros.
  const k = key.length > SHA256_BLOCK ? hash("sha256", key, "buffer") : key;
  const inner = new Uint8Array(SHA256_BLOCK).fill(0x36);
  const outer = Buffer.alloc(SHA256_BLOCK + 32, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i] = 0x36 ^ (k[i] as number);
    outer[i] = 0x5c ^ (k[i] as number);
  }
  pads = { inner, outer };
  padsByKey.set(key, pads);
  return pads;
}

/**
 * SHA-256, synchronously (node:crypto only); a string is hashed as UTF-8.
 *
 * @example
 * ```ts
 * sha256Sync("abc").length; // 32
 * ```
 */
export function sha256Sync(data: Uint8Array | string): Uint8Array {
  // The one-shot crypto.hash (Node >= 20.12) skips the Hash object: about half the time of createHash.
  return plain(hash("sha256", data, "buffer"));
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
  return new Uint8Array(hash("sha256", data, "buffer"));
}

/**
 * `length` bytes from the operating system's CSPRNG.
 *
 * @example
 * ```ts
 * randomBytes(32).length; // 32
 * ```
 */
export function randomBytes(length: number): Uint8Array {
  return randomFillSync(new Uint8Array(length));
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
  return a.length === b.length && nodeTimingSafeEqual(a, b);
}

/** A plain `Uint8Array` view of a Buffer (no copy), so callers never depend on Buffer's methods. */
function plain(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

// DER wrappers of a raw ed25519 key (RFC 8410): node:crypto and WebCrypto both import these.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const privateKeys = new WeakMap<Uint8Array, KeyObject>();
const publicKeys = new WeakMap<Uint8Array, KeyObject>();

/**
 * The 32-byte ed25519 public key of a 32-byte seed.
 *
 * @example
 * ```ts
 * (await ed25519PublicKey(randomBytes(32))).length; // 32
 * ```
 */
export async function ed25519PublicKey(seed: Uint8Array): Promise<Uint8Array> {
  const spki = createPublicKey(privateKeyObject(seed)).export({ format: "der", type: "spki" });
  return plain(spki.subarray(SPKI_ED25519_PREFIX.length));
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
  return plain(nodeSign(null, data, privateKeyObject(seed)));
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
    key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
      format: "der",
      type: "spki",
    });
    publicKeys.set(publicKey, key);
  }
  return nodeVerify(null, data, key, signature);
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  let key = privateKeys.get(seed);
  if (!key) {
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: "der",
      type: "pkcs8",
    });
    privateKeys.set(seed, key);
  }
  return key;
}
