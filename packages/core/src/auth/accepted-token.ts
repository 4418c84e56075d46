import { fromHex } from "../encoding.js";
import { isB64Token } from "./b64token.js";
import { checkTokenFormat, TOKEN_PREFIX } from "./token-format.js";

const HASH_PREFIX = "sha256:";

/**
 * One configured token: its SHA-256 when given as `sha256:<hex>`, otherwise the clear token.
 *
 * @example
 * ```ts
 * const entry: AcceptedToken = { kind: "clear", token: "psk_…" };
 * ```
 */
export type AcceptedToken = { kind: "hash"; hash: Uint8Array } | { kind: "clear"; token: string };

/**
 * Reads one configured token, or explains why it can never match. The explanation never contains the entry.
 *
 * @example
 * ```ts
 * parseAcceptedToken("sha256:" + "ab".repeat(32)); // { ok: true, entry: { kind: "hash", hash: Uint8Array(32) } }
 * parseAcceptedToken("");                          // { ok: false, problem: "it is empty." }
 * ```
 */
export function parseAcceptedToken(
  value: unknown,
): { ok: true; entry: AcceptedToken } | { ok: false; problem: string } {
  if (typeof value !== "string") return { ok: false, problem: "it is not a string; pass the token text." };
  if (value === "") return { ok: false, problem: "it is empty." };
  if (value.startsWith(HASH_PREFIX)) {
    const hash = fromHex(value.slice(HASH_PREFIX.length));
    if (hash?.length !== 32) {
      return {
        ok: false,
        problem: `it starts with '${HASH_PREFIX}' but is not followed by exactly 64 hex characters. Produce it with hashToken().`,
      };
    }
    return { ok: true, entry: { kind: "hash", hash } };
  }
  const problem = clearTokenProblem(value);
  return problem ? { ok: false, problem } : { ok: true, entry: { kind: "clear", token: value } };
}

/**
 * Why a clear token could never be presented and accepted, or `null` when it can.
 *
 * @example
 * ```ts
 * clearTokenProblem("abc\n"); // "it has characters a bearer token cannot carry (…)"
 * ```
 */
export function clearTokenProblem(token: string): string | null {
  if (typeof token !== "string") return "it is not a string; pass the token text.";
  if (token === "") return "it is empty.";
  if (!isB64Token(token)) {
    return "it has characters a bearer token cannot carry (only letters, digits, - . _ ~ + / and trailing =). Check for quotes, spaces or a trailing line break.";
  }
  if (token.startsWith(TOKEN_PREFIX)) {
    const format = checkTokenFormat(token);
    if (!format.ok) return `it looks like a ${TOKEN_PREFIX} token but is damaged. ${format.reason}`;
  }
  return null;
}
