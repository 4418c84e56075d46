import { BASE62_ALPHABET, encodeBase62, utf8Encode } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { crc32 } from "./crc32.js";

/**
 * Prefix of Plant Store tokens, so secret scanners can recognise a leaked one.
 *
 * @example
 * ```ts
 * token.startsWith(TOKEN_PREFIX); // true for tokens made by createToken()
 * ```
 */
export const TOKEN_PREFIX = "psk_";
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
/** `psk_` + 30 random + 6 checksum characters. */
const TOKEN_LENGTH = TOKEN_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const BASE62_ONLY = /^[0-9A-Za-z]*$/;
// 248 = 4 × 62: bytes at or above it are redrawn so every character is equally likely.
const UNBIASED_LIMIT = 248;
const MAX_DRAWS = 64;

/**
 * Builds a `psk_` token from a random source (see {@link createToken} for the default source).
 *
 * @example
 * ```ts
 * generateToken((n) => crypto.getRandomValues(new Uint8Array(n))); // "psk_…" (40 characters)
 * ```
 */
export function generateToken(random: (n: number) => Uint8Array): string {
  let body = "";
  for (let draw = 0; body.length < RANDOM_LENGTH; draw++) {
    if (draw === MAX_DRAWS) {
      throw new PlantStoreError("random_failure", "The random source keeps returning unusable bytes.");
    }
    for (const byte of random(RANDOM_LENGTH - body.length)) {
      if (byte < UNBIASED_LIMIT && body.length < RANDOM_LENGTH) body += BASE62_ALPHABET.charAt(byte % 62);
    }
  }
  return `${TOKEN_PREFIX}${body}${checksum(body)}`;
}

/**
 * Checks that a token has the `psk_` shape and an intact checksum, and explains what is wrong otherwise:
 * a checksum mismatch almost always means a typo or a truncated copy. The reason never contains the token.
 *
 * @example
 * ```ts
 * checkTokenFormat(createToken()); // { ok: true }
 * checkTokenFormat("psk_short");   // { ok: false, reason: "It is 9 characters long; …" }
 * ```
 */
export function checkTokenFormat(token: string): { ok: true } | { ok: false; reason: string } {
  const copyAgain = "Copy it again completely, without quotes, spaces or line breaks.";
  if (typeof token !== "string") return fail(`It is not a string; pass the token text. ${copyAgain}`);
  if (!token.startsWith(TOKEN_PREFIX)) {
    return fail(
      `It does not start with '${TOKEN_PREFIX}'; Plant Store tokens are '${TOKEN_PREFIX}' followed by 36 letters and digits.`,
    );
  }
  const rest = token.slice(TOKEN_PREFIX.length);
  if (!BASE62_ONLY.test(rest)) {
    return fail(`It has characters other than letters and digits after '${TOKEN_PREFIX}'. ${copyAgain}`);
  }
  if (token.length !== TOKEN_LENGTH) {
    return fail(
      `It is ${token.length} characters long; a Plant Store token has ${TOKEN_LENGTH}. ${copyAgain}`,
    );
  }
  const body = rest.slice(0, RANDOM_LENGTH);
  if (rest.slice(RANDOM_LENGTH) !== checksum(body)) {
    return fail(`Its checksum does not match, so it was most likely mistyped or cut short. ${copyAgain}`);
  }
  return { ok: true };
}

function checksum(body: string): string {
  return encodeBase62(crc32(utf8Encode(body)), CHECKSUM_LENGTH);
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
