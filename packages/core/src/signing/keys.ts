import type { CryptoProvider } from "../crypto/types.js";
import { fromBase64, toBase64 } from "../encoding.js";
import { PlantStoreError } from "../errors.js";

/**
 * Prefix of Standard Webhooks ed25519 public keys (`v1a` verification).
 *
 * @example
 * ```ts
 * (await createKeyPair()).publicKey.startsWith(PUBLIC_KEY_PREFIX); // true
 * ```
 */
export const PUBLIC_KEY_PREFIX = "whpk_";

/**
 * Prefix of Standard Webhooks ed25519 private keys (`v1a` signing).
 *
 * @example
 * ```ts
 * (await createKeyPair()).privateKey.startsWith(PRIVATE_KEY_PREFIX); // true
 * ```
 */
export const PRIVATE_KEY_PREFIX = "whsk_";

const KEY_BYTES = 32;

/**
 * A decoded `whsk_` key: the 32-byte seed, and the public key when the encoding carried it (64-byte form).
 *
 * @example
 * ```ts
 * const key: PrivateKey = parsePrivateKey("whsk_…");
 * ```
 */
export interface PrivateKey {
  seed: Uint8Array;
  publicKey: Uint8Array | null;
}

/**
 * An ed25519 key pair in the Standard Webhooks serialization.
 *
 * @example
 * ```ts
 * const pair: KeyPair = { privateKey: "whsk_…", publicKey: "whpk_…" };
 * ```
 */
export interface KeyPair {
  /** `whsk_` + base64 of the 64-byte seed‖public key (the libsodium/Go layout); keep it secret. */
  privateKey: string;
  /** `whpk_` + base64 of the 32-byte public key; give it to every receiver. */
  publicKey: string;
}

/**
 * Decodes a `whpk_<base64>` public key (32 bytes). Throws a `PlantStoreError` with code `invalid_key`.
 *
 * @example
 * ```ts
 * parsePublicKey("whpk_…").length; // 32
 * ```
 */
export function parsePublicKey(key: string): Uint8Array {
  if (typeof key !== "string" || !key.startsWith(PUBLIC_KEY_PREFIX)) {
    throw invalid(
      key?.startsWith?.(PRIVATE_KEY_PREFIX)
        ? `This is a private key ('${PRIVATE_KEY_PREFIX}…'); a receiver needs only the public key ('${PUBLIC_KEY_PREFIX}…'). Never hand the private key to receivers.`
        : `A public key must be '${PUBLIC_KEY_PREFIX}' followed by base64 (Standard Webhooks v1a). Create a pair with createKeyPair() or \`plant-store keypair create\`.`,
    );
  }
  const bytes = fromBase64(key.slice(PUBLIC_KEY_PREFIX.length));
  if (bytes?.length !== KEY_BYTES) {
    throw invalid(
      `The public key is not base64 of ${KEY_BYTES} bytes after '${PUBLIC_KEY_PREFIX}'. Copy it again completely, without quotes, spaces or line breaks.`,
    );
  }
  return bytes;
}

/**
 * Decodes a `whsk_<base64>` private key: 64 bytes (seed‖public key, as `createKeyPair` writes and libsodium, Go and
 * Svix use) or a bare 32-byte seed. Throws a `PlantStoreError` with code `invalid_key`, never echoing the key.
 *
 * @example
 * ```ts
 * parsePrivateKey("whsk_…").seed.length; // 32
 * ```
 */
export function parsePrivateKey(key: string): PrivateKey {
  if (typeof key !== "string" || !key.startsWith(PRIVATE_KEY_PREFIX)) {
    throw invalid(
      key?.startsWith?.(PUBLIC_KEY_PREFIX)
        ? `This is a public key ('${PUBLIC_KEY_PREFIX}…'); signing needs the private key ('${PRIVATE_KEY_PREFIX}…').`
        : `A private key must be '${PRIVATE_KEY_PREFIX}' followed by base64 (Standard Webhooks v1a). Create a pair with createKeyPair() or \`plant-store keypair create\`.`,
    );
  }
  const bytes = fromBase64(key.slice(PRIVATE_KEY_PREFIX.length));
  if (bytes?.length === KEY_BYTES) return { seed: bytes, publicKey: null };
  if (bytes?.length === 2 * KEY_BYTES) {
    return { seed: bytes.subarray(0, KEY_BYTES), publicKey: bytes.subarray(KEY_BYTES) };
  }
  throw invalid(
    `The private key is not base64 of ${2 * KEY_BYTES} bytes (seed and public key) or ${KEY_BYTES} bytes (seed) after '${PRIVATE_KEY_PREFIX}'. Copy it again completely.`,
  );
}

/**
 * Decodes every key of a list, naming the position of a bad one (as `parseSecrets` does).
 *
 * @example
 * ```ts
 * parseKeys(["whpk_…", "whpk_…"], parsePublicKey, "Public key");
 * ```
 */
export function parseKeys<K>(keys: readonly string[], parse: (key: string) => K, what: string): K[] {
  if (!Array.isArray(keys)) throw invalid(`${what}s must be an array of strings (several during rotation).`);
  return keys.map((key, index) => {
    try {
      return parse(key);
    } catch (error) {
      if (keys.length === 1 || !(error instanceof PlantStoreError)) throw error;
      throw invalid(`${what} ${index + 1} of ${keys.length}: ${error.message}`);
    }
  });
}

/**
 * Decodes a private key and checks that its embedded public key (64-byte form) belongs to its seed, so a key
 * pasted together from two pairs is refused before it signs anything. Returns the seed.
 *
 * @example
 * ```ts
 * const seed = await signingSeed(crypto, "whsk_…");
 * ```
 */
export async function signingSeed(crypto: CryptoProvider, key: string): Promise<Uint8Array> {
  const { seed, publicKey } = parsePrivateKey(key);
  if (publicKey && !crypto.timingSafeEqual(await crypto.ed25519PublicKey(seed), publicKey)) {
    throw invalid(
      `The private key's second half is not the public key of its first half: it was not made as one pair. Use the '${PRIVATE_KEY_PREFIX}…' value exactly as created.`,
    );
  }
  return seed;
}

/**
 * Creates an ed25519 key pair from a random 32-byte seed.
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = await generateKeyPair(crypto); // "whsk_…", "whpk_…"
 * ```
 */
export async function generateKeyPair(
  crypto: CryptoProvider,
  random: (n: number) => Uint8Array = crypto.randomBytes,
): Promise<KeyPair> {
  const seed = random(KEY_BYTES);
  if (seed.length !== KEY_BYTES) {
    throw new PlantStoreError(
      "random_failure",
      `The random source returned ${seed.length} bytes, not ${KEY_BYTES}.`,
    );
  }
  const publicKey = await crypto.ed25519PublicKey(seed);
  const full = new Uint8Array(2 * KEY_BYTES);
  full.set(seed);
  full.set(publicKey, KEY_BYTES);
  return {
    privateKey: `${PRIVATE_KEY_PREFIX}${toBase64(full)}`,
    publicKey: `${PUBLIC_KEY_PREFIX}${toBase64(publicKey)}`,
  };
}

/**
 * The `whpk_` public key of a `whsk_` private key.
 *
 * @example
 * ```ts
 * await publicKeyOfWith(crypto, "whsk_…"); // "whpk_…"
 * ```
 */
export async function publicKeyOfWith(crypto: CryptoProvider, privateKey: string): Promise<string> {
  const seed = await signingSeed(crypto, privateKey);
  return `${PUBLIC_KEY_PREFIX}${toBase64(await crypto.ed25519PublicKey(seed))}`;
}

function invalid(message: string): PlantStoreError {
  return new PlantStoreError("invalid_key", message);
}
