import { fromBase64 } from "../encoding.js";

const HMAC_SHA256_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;

/**
 * A `webhook-signature` header split into the signatures a verifier can check: `v1` (HMAC-SHA256) when it holds
 * secrets, `v1a` (ed25519) when it holds public keys. Entries of other versions are counted and ignored, malformed
 * entries counted and skipped.
 *
 * @example
 * ```ts
 * const parsed: ParsedSignatureHeader = parseSignatureHeader("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
 * ```
 */
export type ParsedSignatureHeader =
  | { ok: true; v1: Uint8Array[]; v1a: Uint8Array[]; otherVersions: number; skipped: number }
  | { ok: false; message: string };

/**
 * Parses space-separated `<version>,<signature>` entries the way the Standard Webhooks reference does: a malformed
 * entry (no version prefix, or a value that is not base64 of a 32-byte HMAC for `v1`, of a 64-byte ed25519
 * signature for `v1a`) is skipped, so one broken entry cannot hide a valid signature next to it. Only a header
 * without a single well-formed entry is malformed. `versions` says which versions the verifier checks; the others
 * count as other versions.
 *
 * @example
 * ```ts
 * parseSignatureHeader("v1,abc v1a,xyz"); // { ok: true, v1: [], v1a: [], otherVersions: 1, skipped: 1 }
 * parseSignatureHeader("v1,abc");         // { ok: false, message: "…" } (abc is not a 32-byte base64 value)
 * ```
 */
export function parseSignatureHeader(
  header: string,
  versions: { v1: boolean; v1a: boolean } = { v1: true, v1a: false },
): ParsedSignatureHeader {
  // A sender usually signs with one secret: one entry, nothing to split.
  const entries = header.includes(" ")
    ? header.split(" ").filter((entry) => entry !== "")
    : header
      ? [header]
      : [];
  if (entries.length === 0) return malformed("it holds no signature.");
  const v1: Uint8Array[] = [];
  const v1a: Uint8Array[] = [];
  let otherVersions = 0;
  let skipped = 0;
  let problem = "";
  for (const entry of entries) {
    const comma = entry.indexOf(",");
    if (comma <= 0) {
      skipped++;
      problem ||= "an entry has no version prefix; write each signature as 'v1,<base64>' or 'v1a,<base64>'.";
      continue;
    }
    const version = entry.slice(0, comma);
    const checked = version === "v1" ? versions.v1 : version === "v1a" ? versions.v1a : false;
    if (!checked) {
      otherVersions++;
      continue;
    }
    const signature = fromBase64(entry.slice(comma + 1));
    const bytes = version === "v1" ? HMAC_SHA256_BYTES : ED25519_SIGNATURE_BYTES;
    if (signature?.length !== bytes) {
      skipped++;
      problem ||=
        version === "v1"
          ? "a v1 signature is not the base64 of a 32-byte HMAC-SHA256."
          : "a v1a signature is not the base64 of a 64-byte ed25519 signature.";
      continue;
    }
    (version === "v1" ? v1 : v1a).push(signature);
  }
  if (v1.length === 0 && v1a.length === 0 && otherVersions === 0) return malformed(problem);
  return { ok: true, v1, v1a, otherVersions, skipped };
}

function malformed(problem: string): ParsedSignatureHeader {
  return {
    ok: false,
    message: `Malformed webhook-signature: ${problem} Send space-separated 'v1,<base64 HMAC-SHA256>' or 'v1a,<base64 ed25519>' entries (Standard Webhooks).`,
  };
}
