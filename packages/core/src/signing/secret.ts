import { fromBase64, toBase64 } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import type { Kept } from "../kept.js";

/**
 * Prefix of Standard Webhooks signing secrets.
 *
 * @example
 * ```ts
 * createSecret().startsWith(SECRET_PREFIX); // true
 * ```
 */
export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;
// Standard Webhooks: secrets should be 24 to 64 bytes (192 to 512 bits).
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const ASYMMETRIC_PREFIXES = ["whpk_", "whsk_"] as const;

/**
 * Builds a `whsec_` secret from a random source (see {@link createSecret} for the default source).
 *
 * @example
 * ```ts
 * generateSecret((n) => crypto.getRandomValues(new Uint8Array(n))); // "whsec_…" (32 bytes)
 * ```
 */
export function generateSecret(random: (n: number) => Uint8Array): string {
  const bytes = random(SECRET_BYTES);
  if (bytes.length !== SECRET_BYTES) {
    throw new PlantStoreError(
      "random_failure",
      `The random source returned ${bytes.length} bytes, not ${SECRET_BYTES}.`,
    );
  }
  return `${SECRET_PREFIX}${toBase64(bytes)}`;
}

/**
 * Decodes a `whsec_<base64>` secret into its HMAC key. The prefix is optional, as in the `standardwebhooks` and
 * `svix` libraries (Svix dashboards show it, some providers do not). Throws a `PlantStoreError` with code
 * `invalid_secret` when the base64 is wrong or the key is not 24 to 64 bytes; the message never contains the secret.
 *
 * @example
 * ```ts
 * parseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").length; // 24
 * parseSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").length;       // 24, the same key
 * ```
 */
export function parseSecret(secret: string): Uint8Array {
  if (typeof secret !== "string") {
    throw invalid(
      `The signing secret must be a string: '${SECRET_PREFIX}' followed by base64 (Standard Webhooks). Create one with createSecret().`,
    );
  }
  const asymmetric = ASYMMETRIC_PREFIXES.find((prefix) => secret.startsWith(prefix));
  if (asymmetric) {
    throw invalid(
      `This is an ed25519 ${asymmetric === "whpk_" ? "public" : "private"} key ('${asymmetric}…'), not a '${SECRET_PREFIX}' secret: configure it as a ${asymmetric === "whpk_" ? "public key (verifies v1a)" : "private key (signs v1a)"}.`,
    );
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = fromBase64(encoded);
  if (!key) {
    throw invalid(
      `The signing secret is not valid base64 (after the optional '${SECRET_PREFIX}'). Copy it again completely, without quotes, spaces or line breaks.`,
    );
  }
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw invalid(
      `The signing secret holds ${key.length} bytes; use ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} (createSecret() makes ${SECRET_BYTES}).`,
    );
  }
  return key;
}

/**
 * Decodes every secret of a rotation set; throws like {@link parseSecret}, naming the position of a bad one.
 *
 * @example
 * ```ts
 * parseSecrets([oldSecret, newSecret]); // [Uint8Array, Uint8Array]
 * ```
 */
export function parseSecrets(secrets: readonly string[]): Uint8Array[] {
  return decodeSecrets(secrets, parseSecret);
}

/** How many decoded secrets `createSigning`'s `signatureHeader` keeps: far more than a sender signs with at once. */
export const SIGNING_KEYS_KEPT = 1024;

/**
 * The HMAC keys of `secrets`, decoded as {@link parseSecrets} decodes them (same errors), and kept in `kept` for the
 * next call with the same secret text: a sender signs every attempt of a subscription with the same secrets, and
 * decoding them anew also drops the HMAC pads node keeps per key object. One that fails to decode is not kept. The
 * bytes returned are shared between calls and must not be changed.
 *
 * @example
 * ```ts
 * const kept = createKept<Uint8Array>(SIGNING_KEYS_KEPT);
 * signingKeys([secret], kept)[0] === signingKeys([secret], kept)[0]; // true
 * ```
 */
export function signingKeys(secrets: readonly string[], kept: Kept<Uint8Array>): Uint8Array[] {
  return decodeSecrets(secrets, (secret) => kept.get(secret) ?? kept.set(secret, parseSecret(secret)));
}

function decodeSecrets(secrets: readonly string[], decode: (secret: string) => Uint8Array): Uint8Array[] {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw invalid("No signing secret is configured. Configure at least one 'whsec_…' secret.");
  }
  return secrets.map((secret, index) => {
    try {
      return decode(secret);
    } catch (error) {
      if (secrets.length === 1 || !(error instanceof PlantStoreError)) throw error;
      throw invalid(`Signing secret ${index + 1} of ${secrets.length}: ${error.message}`);
    }
  });
}

function invalid(message: string): PlantStoreError {
  return new PlantStoreError("invalid_secret", message);
}
