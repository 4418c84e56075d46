/**
 * Text and byte encodings without `Buffer`, so core runs unchanged on WebCrypto runtimes (Deno, Bun, edge workers).
 *
 * @module
 */

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX_SHAPE = /^(?:[0-9a-fA-F]{2})*$/;
// Indexed by char code: a typed-array lookup is several times faster than a Map on the verify path.
const BASE64_VALUES = new Uint8Array(128);
for (let i = 0; i < BASE64_ALPHABET.length; i++) BASE64_VALUES[BASE64_ALPHABET.charCodeAt(i)] = i;
// Stateless (no streaming), so sharing one instance is safe and spares an allocation per call.
const UTF8_ENCODER = new TextEncoder();
const UTF8_DECODER = new TextDecoder();

/**
 * The base62 alphabet used by tokens: digits, then upper case, then lower case.
 *
 * @example
 * ```ts
 * BASE62_ALPHABET.length; // 62
 * ```
 */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Encodes text as UTF-8 bytes.
 *
 * @example
 * ```ts
 * utf8Encode("é"); // Uint8Array [0xc3, 0xa9]
 * ```
 */
export function utf8Encode(text: string): Uint8Array {
  return UTF8_ENCODER.encode(text);
}

/**
 * Decodes UTF-8 bytes; invalid sequences become U+FFFD.
 *
 * @example
 * ```ts
 * utf8Decode(new Uint8Array([0xc3, 0xa9])); // "é"
 * ```
 */
export function utf8Decode(bytes: Uint8Array): string {
  return UTF8_DECODER.decode(bytes);
}

/**
 * Encodes bytes as standard, padded base64 (RFC 4648 §4).
 *
 * @example
 * ```ts
 * toBase64(new Uint8Array([1, 2, 3, 4])); // "AQIDBA=="
 * ```
 */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const group = (a << 16) | (b << 8) | c;
    out += BASE64_ALPHABET.charAt(group >> 18) + BASE64_ALPHABET.charAt((group >> 12) & 63);
    out += i + 1 < bytes.length ? BASE64_ALPHABET.charAt((group >> 6) & 63) : "=";
    out += i + 2 < bytes.length ? BASE64_ALPHABET.charAt(group & 63) : "=";
  }
  return out;
}

/**
 * Decodes standard, padded base64 strictly: any other character, a missing or misplaced `=`, or non-zero
 * padding bits return `null`, so one byte string has exactly one accepted spelling.
 *
 * @example
 * ```ts
 * fromBase64("AQIDBA=="); // Uint8Array [1, 2, 3, 4]
 * fromBase64("AQIDBA");   // null (padding missing)
 * ```
 */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !BASE64_SHAPE.test(text)) return null;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  // The last data character carries 4 (==) or 2 (=) unused bits; a canonical encoder leaves them zero.
  if (padding > 0 && value(text, text.length - padding - 1) & (padding === 2 ? 0b1111 : 0b11)) return null;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const group =
      (value(text, i) << 18) | (value(text, i + 1) << 12) | (value(text, i + 2) << 6) | value(text, i + 3);
    out[o++] = group >> 16;
    if (o < out.length) out[o++] = (group >> 8) & 255;
    if (o < out.length) out[o++] = group & 255;
  }
  return out;
}

function value(text: string, index: number): number {
  return BASE64_VALUES[text.charCodeAt(index)] ?? 0;
}

/**
 * Encodes bytes as lower-case hex.
 *
 * @example
 * ```ts
 * toHex(new Uint8Array([0, 171])); // "00ab"
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/**
 * Decodes hex (either case) strictly: an odd length or any non-hex character returns `null`.
 *
 * @example
 * ```ts
 * fromHex("00AB"); // Uint8Array [0, 171]
 * fromHex("0g");   // null
 * ```
 */
export function fromHex(text: string): Uint8Array | null {
  if (!HEX_SHAPE.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Encodes a non-negative safe integer in base62 ({@link BASE62_ALPHABET}), left-padded with `0` to `width`.
 *
 * @example
 * ```ts
 * encodeBase62(61);            // "z"
 * encodeBase62(62, 6);         // "000010"
 * ```
 */
export function encodeBase62(value: number, width = 1): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError("encodeBase62 takes a non-negative safe integer.");
  }
  let out = "";
  let rest = value;
  do {
    out = BASE62_ALPHABET.charAt(rest % 62) + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, "0");
}
