import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { StoreConfigError } from "../errors.js";
import type { StoreLogger } from "../options.js";

const PREFIX = "enc:v1:";

/** Seals subscription tokens and secrets for storage; see `createSecretBox`. */
export interface SecretBox {
  /** `true` when a key is configured. */
  readonly encrypting: boolean;
  /** `aad` binds the ciphertext to its row and field, so it cannot be copied to another. */
  seal(plain: string, aad: string): string;
  open(stored: string, aad: string): string;
}

/**
 * Parses a 32-byte key given as 64 hex characters or base64/base64url; the error never echoes it.
 *
 * @example
 * ```ts
 * parseEncryptionKey(randomBytes(32).toString("base64")).length; // 32
 * ```
 */
export function parseEncryptionKey(value: string): Buffer {
  const text = value.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, "hex");
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) key = Buffer.from(text, "base64");
  if (key?.length !== 32) {
    throw new StoreConfigError(
      "invalid_encryption_key",
      "The encryption key must be 32 random bytes written as 64 hex characters or base64 " +
        "(e.g. `openssl rand -base64 32`).",
    );
  }
  return key;
}

/** Short public id of a key, stored with each ciphertext so rotated keys can be told apart. */
function keyId(key: Buffer): string {
  return createHash("sha256").update("plant-store key id").update(key).digest("hex").slice(0, 8);
}

/**
 * AES-256-GCM with a random 12-byte IV: `enc:v1:<key id>:<base64url(iv ‖ ciphertext ‖ tag)>`.
 * Without a key, values pass through in clear and a warning is logged once: anyone who can read
 * the database (or a backup) can then use the tokens and forge signatures.
 *
 * @example
 * ```ts
 * const box = createSecretBox({ key: process.env.PLANT_STORE_ENCRYPTION_KEY, logger: console });
 * const stored = box.seal("whsec_…", "sub_1:secret");
 * box.open(stored, "sub_1:secret"); // "whsec_…"
 * ```
 */
export function createSecretBox(options: {
  key?: string | undefined;
  previousKeys?: readonly string[] | undefined;
  logger: StoreLogger;
}): SecretBox {
  const current = options.key ? parseEncryptionKey(options.key) : undefined;
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...(options.previousKeys ?? []).map(parseEncryptionKey)]) {
    if (k) keys.set(keyId(k), k);
  }
  const currentId = current ? keyId(current) : undefined;
  let warned = false;

  return {
    encrypting: current !== undefined,
    seal(plain, aad) {
      if (!current || !currentId) {
        if (!warned && plain !== "") {
          warned = true;
          options.logger.warn(
            "plant-store: no encryption key configured, so subscription tokens and signing secrets are " +
              "stored in clear text. Set an encryption key (32 bytes, base64 or hex) to encrypt them at rest.",
          );
        }
        return plain;
      }
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      cipher.setAAD(Buffer.from(aad, "utf8"));
      const body = Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${currentId}:${body.toString("base64url")}`;
    },
    open(stored, aad) {
      // Values written before a key was configured are still readable; the next update seals them.
      if (!stored.startsWith(PREFIX)) return stored;
      const [id, payload] = stored.slice(PREFIX.length).split(":");
      const key = id ? keys.get(id) : undefined;
      if (!key || payload === undefined) {
        throw new StoreConfigError(
          keys.size === 0 ? "encryption_key_missing" : "encryption_key_unknown",
          keys.size === 0
            ? "Subscription credentials are encrypted but no encryption key is configured; set the key they were written with."
            : `Subscription credentials were encrypted with key ${id ?? "?"}, which is not configured; add it to the previous keys.`,
        );
      }
      const raw = Buffer.from(payload, "base64url");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(aad, "utf8"));
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
          "utf8",
        );
      } catch (cause) {
        throw new StoreConfigError(
          "decryption_failed",
          "A stored subscription credential failed authentication: it was altered or moved to another row.",
          { cause },
        );
      }
    },
  };
}
