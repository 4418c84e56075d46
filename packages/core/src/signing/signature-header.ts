import { fromBase64 } from "../encoding.js";

const HMAC_SHA256_BYTES = 32;

/**
 * A `webhook-signature` header split into its v1 signatures; entries of other versions (e.g. `v1a`) are counted
 * and ignored, malformed entries are counted and skipped.
 *
 * @example
 * ```ts
 * const parsed: ParsedSignatureHeader = parseSignatureHeader("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
 * ```
 */
export type ParsedSignatureHeader =
  | { ok: true; v1: Uint8Array[]; otherVersions: number; skipped: number }
  | { ok: false; message: string };

/**
 * Parses space-separated `<version>,<signature>` entries the way the Standard Webhooks reference does: a malformed
 * entry (no version prefix, or a v1 value that is not base64 of a 32-byte HMAC) is skipped, so one broken entry
 * cannot hide a valid signature next to it. Only a header without a single well-formed entry is malformed.
 *
 * @example
 * ```ts
 * parseSignatureHeader("v1,abc v1a,xyz"); // { ok: true, v1: [], otherVersions: 1, skipped: 1 }
 * parseSignatureHeader("v1,abc");         // { ok: false, message: "…" } (abc is not a 32-byte base64 value)
 * ```
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  const entries = header.split(" ").filter((entry) => entry !== "");
  if (entries.length === 0) return malformed("it holds no signature.");
  const v1: Uint8Array[] = [];
  let otherVersions = 0;
  let skipped = 0;
  let problem = "";
  for (const entry of entries) {
    const comma = entry.indexOf(",");
    if (comma <= 0) {
      skipped++;
      problem ||= "an entry has no version prefix; write each signature as 'v1,<base64>'.";
      continue;
    }
    if (entry.slice(0, comma) !== "v1") {
      otherVersions++;
      continue;
    }
    const signature = fromBase64(entry.slice(comma + 1));
    if (signature?.length !== HMAC_SHA256_BYTES) {
      skipped++;
      problem ||= "a v1 signature is not the base64 of a 32-byte HMAC-SHA256.";
      continue;
    }
    v1.push(signature);
  }
  if (v1.length === 0 && otherVersions === 0) return malformed(problem);
  return { ok: true, v1, otherVersions, skipped };
}

function malformed(problem: string): ParsedSignatureHeader {
  return {
    ok: false,
    message: `Malformed webhook-signature: ${problem} Send space-separated 'v1,<base64 HMAC-SHA256>' entries (Standard Webhooks).`,
  };
}
