// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Whether `value` can travel as a bearer token (RFC 6750 `b64token`).
 *
 * @example
 * ```ts
 * isB64Token("psk_abc=="); // true
 * isB64Token("a b");       // false
 * ```
 */
export function isB64Token(value: string): boolean {
  return B64TOKEN.test(value);
}
