// Stateless: `decode` without `{ stream: true }` keeps nothing between calls. `ignoreBOM` keeps a BOM in the
// text so that byte and string input are treated alike by the caller.
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The outcome of {@link decodeUtf8}: the text, or the offset of the first byte that is not well-formed UTF-8. */
export type DecodedUtf8 = { ok: true; text: string } | { ok: false; offset: number; byte: number };

/**
 * Decodes UTF-8 strictly: overlong forms, surrogates, code points above U+10FFFF and truncated sequences are
 * errors (never U+FFFD), and the error says where the first bad byte is.
 *
 * @example
 * ```ts
 * decodeUtf8(new Uint8Array([0x7b, 0x7d])); // { ok: true, text: "{}" }
 * decodeUtf8(new Uint8Array([0x7b, 0xff])); // { ok: false, offset: 1, byte: 0xff }
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): DecodedUtf8 {
  try {
    return { ok: true, text: strictDecoder.decode(bytes) };
  } catch {
    const offset = invalidUtf8Offset(bytes);
    return { ok: false, offset, byte: bytes[offset] ?? 0 };
  }
}

/**
 * The offset of the first byte that starts an ill-formed UTF-8 sequence (Unicode Table 3-7), or -1 when the
 * bytes are well-formed.
 *
 * @example
 * ```ts
 * invalidUtf8Offset(new TextEncoder().encode("Žlutá")); // -1
 * invalidUtf8Offset(new Uint8Array([0x61, 0xc0, 0xaf])); // 1 (overlong "/")
 * ```
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0; // overlong
      if (lead === 0xed) high = 0x9f; // UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90; // overlong
      if (lead === 0xf4) high = 0x8f; // beyond U+10FFFF
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}
