import { fromBase64 } from "../encoding.js";

const HMAC_SHA256_BYTES = 32;

/**
 * A `webhook-signature` header split into its v1 signatures; entries of other versions (e.g. `v1a`) are counted
 * and ignored.
 *
 * @example
 * ```ts
 * const parsed: ParsedSignatureHeader = parseSignatureHeader("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
 * ```
 */
export type ParsedSignatureHeader =
  | { ok: true; v1: Uint8Array[]; otherVersions: number }
  | { ok: false; message: string };

/**
 * Parses space-separated `<version>,<signature>` entries. Any v1 entry that is not base64 of a 32-byte HMAC makes
 * the whole header malformed: a sender that writes one broken signature should hear about it.
 *
 * @example
 * ```ts
 * parseSignatureHeader("v1,abc v1a,xyz"); // { ok: false, message: "…" } (abc is not a 32-byte base64 value)
 * ```
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  const entries = header.split(" ").filter((entry) => entry !== "");
  if (entries.length === 0) return malformed("it holds no signature.");
  const v1: Uint8Array[] = [];
  let otherVersions = 0;
  for (const entry of entries) {
    const comma = entry.indexOf(",");
    if (comma <= 0)
      return malformed("an entry has no version prefix; write each signature as 'v1,<base64>'.");
    if (entry.slice(0, comma) !== "v1") {
      otherVersions++;
      continue;
    }
    const signature = fromBase64(entry.slice(comma + 1));
    if (signature?.length !== HMAC_SHA256_BYTES) {
      return malformed("a v1 signature is not the base64 of a 32-byte HMAC-SHA256.");
    }
    v1.push(signature);
  }
  return { ok: true, v1, otherVersions };
}

function malformed(problem: string): ParsedSignatureHeader {
  return {
    ok: false,
    message: `Malformed webhook-signature: ${problem} Send space-separated 'v1,<base64 HMAC-SHA256>' entries (Standard Webhooks).`,
  };
}
