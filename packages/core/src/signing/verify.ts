import { sameText } from "../constant-time.js";
import type { CryptoProvider } from "../crypto/types.js";
import { PlantStoreError } from "../errors.js";
import { checkBody, describe, functionOption, numberOption } from "../options.js";
import { parseKeys, parsePublicKey } from "./keys.js";
import { idProblem, parseTimestamp, signedContent } from "./message-parts.js";
import { parseSecrets } from "./secret.js";
import { parseSignatureHeader } from "./signature-header.js";

/**
 * Why a signed webhook was refused. `missing_headers` and `malformed_*` map to 400, the others to 401.
 *
 * @example
 * ```ts
 * const status = (code: VerifyFailure) => (code === "missing_headers" || code.startsWith("malformed_") ? 400 : 401);
 * ```
 */
export type VerifyFailure =
  | "missing_headers"
  | "malformed_id"
  | "malformed_timestamp"
  | "malformed_signature"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "no_matching_signature";

/**
 * The verdict of {@link verifyWith}: the verified timestamp, or a code with a message saying what to do.
 *
 * @example
 * ```ts
 * const result: VerifyResult = { ok: false, code: "timestamp_too_old", message: "…" };
 * ```
 */
export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; code: VerifyFailure; message: string };

/**
 * Input of `verify`: the three Standard Webhooks headers as received, the raw body, and the accepted secrets
 * and/or public keys (at least one).
 *
 * @example
 * ```ts
 * const input: VerifyInput = { secrets, id: h["webhook-id"], timestamp: h["webhook-timestamp"],
 *   signature: h["webhook-signature"], body: rawBytes };
 * ```
 */
export interface VerifyInput {
  /** Accepted `whsec_` secrets (`v1`, HMAC-SHA256); several during rotation. The prefix is optional. */
  secrets?: readonly string[] | undefined;
  /** Accepted `whpk_` public keys (`v1a`, ed25519); several during rotation. */
  publicKeys?: readonly string[] | undefined;
  id: string | null | undefined;
  /** The header text; a number of whole seconds is accepted too (what `sign` takes). */
  timestamp: string | number | null | undefined;
  signature: string | null | undefined;
  /** The raw body exactly as received; a string is taken as UTF-8. */
  body: string | Uint8Array;
  /** Clock in milliseconds; default `Date.now`. */
  now?: (() => number) | undefined;
  /** Accepted clock difference in seconds, both into the past and the future; default 300. */
  toleranceSeconds?: number | undefined;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const TOLERANCE_RANGE = { min: 0, unit: "(seconds)" };
const SIGNED_HEADERS =
  "Signed webhooks carry webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks).";

/**
 * Standard Webhooks v1 verification over an explicit crypto implementation; `verify` binds `#crypto`.
 * Every accepted secret is tried against every v1 signature in constant time, without stopping at a match.
 * Throws a `PlantStoreError` only for bad configuration (`invalid_secret`, `invalid_option`).
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * const result = await verifyWith(web, { secrets, id, timestamp, signature, body });
 * ```
 */
export async function verifyWith(crypto: CryptoProvider, input: VerifyInput): Promise<VerifyResult> {
  return verifyWithKeys(crypto, parseVerifierKeys(input), input);
}

/**
 * The decoded keys of a verifier: HMAC keys of the secrets, and ed25519 public keys.
 *
 * @example
 * ```ts
 * const keys: VerifierKeys = parseVerifierKeys({ secrets: ["whsec_…"], publicKeys: ["whpk_…"] });
 * ```
 */
export interface VerifierKeys {
  secrets: readonly Uint8Array[];
  publicKeys: readonly Uint8Array[];
}

/**
 * Decodes the secrets and public keys a verifier accepts; throws `invalid_secret` / `invalid_key` for a bad one,
 * and `invalid_secret` when there is neither.
 *
 * @example
 * ```ts
 * parseVerifierKeys({ publicKeys: ["whpk_…"] }); // { secrets: [], publicKeys: [Uint8Array] }
 * ```
 */
export function parseVerifierKeys(input: {
  secrets?: readonly string[] | undefined;
  publicKeys?: readonly string[] | undefined;
}): VerifierKeys {
  const publicKeys =
    input.publicKeys === undefined ? [] : parseKeys(input.publicKeys, parsePublicKey, "Public key");
  if (
    publicKeys.length > 0 &&
    (input.secrets === undefined || (Array.isArray(input.secrets) && input.secrets.length === 0))
  ) {
    return { secrets: [], publicKeys };
  }
  if (publicKeys.length === 0 && (input.secrets === undefined || input.secrets.length === 0)) {
    throw new PlantStoreError(
      "invalid_secret",
      "No signing secret or public key is configured. Configure at least one 'whsec_…' secret (v1) or 'whpk_…' public key (v1a).",
    );
  }
  return { secrets: parseSecrets(input.secrets as readonly string[]), publicKeys };
}

/**
 * {@link verifyWith} over keys decoded once (`parseVerifierKeys`), for callers that verify many messages with the
 * same keys: the receive pipeline decodes them when it is created, not per request. The verdict itself when it is
 * reached before the full comparison (a `v1` entry that matches on a provider with `hmacSha256Base64Sync`, and every
 * refusal the headers decide), a promise when the full comparison runs. Throws only for bad configuration or
 * arguments.
 *
 * @example
 * ```ts
 * const keys = parseVerifierKeys({ secrets });
 * const result = await verifyWithKeys(crypto, keys, { id, timestamp, signature, body });
 * ```
 */
export function verifyWithKeys(
  crypto: CryptoProvider,
  keys: VerifierKeys,
  input: Omit<VerifyInput, "secrets" | "publicKeys">,
): VerifyResult | Promise<VerifyResult> {
  const { tolerance, now } = checkArguments(input);
  const headers = readHeaders(input);
  if (!headers.ok) return headers;
  const nowSeconds = Math.floor(now() / 1000); // read once: both paths judge the timestamp against the same time
  const inTolerance = Math.abs(nowSeconds - headers.timestamp) <= tolerance;
  // A valid v1 entry is exactly `v1,` and the canonical base64 of 32 bytes, so when the text comparison found no
  // match, the byte comparison cannot either: it is skipped (`v1Checked`), and a forged request costs one MAC.
  const v1Checked = inTolerance && canMatchText(crypto, keys);
  if (v1Checked && v1TextMatches(crypto, keys, headers, input.body)) {
    return { ok: true, timestamp: headers.timestamp };
  }
  const parsed = parseSignatureHeader(headers.signature, {
    v1: keys.secrets.length > 0,
    v1a: keys.publicKeys.length > 0,
  });
  if (!parsed.ok) return fail("malformed_signature", parsed.message);
  const refused = timestampRefusal(nowSeconds - headers.timestamp, tolerance);
  if (refused) return refused;
  const skipped =
    parsed.skipped === 0
      ? ""
      : ` ${parsed.skipped} malformed entr${parsed.skipped === 1 ? "y was" : "ies were"} skipped.`;
  if (parsed.v1.length === 0 && parsed.v1a.length === 0) {
    return fail(
      "no_matching_signature",
      `webhook-signature carries ${parsed.otherVersions} signature(s) but none of version ${expectedVersions(keys)}; this receiver verifies ${expectedVersions(keys)}.${skipped}`,
    );
  }
  return compareSignatures(crypto, keys, { ...headers, body: input.body, parsed, v1Checked, skipped });
}

/** The tolerance and clock to judge with; throws for an argument that is not one (a bug, not a bad request). */
function checkArguments(input: Omit<VerifyInput, "secrets" | "publicKeys">): {
  tolerance: number;
  now: () => number;
} {
  // Inline checks first (this runs per request); the helpers only build the error of a bad value.
  let tolerance = input.toleranceSeconds;
  if (!(typeof tolerance === "number" && tolerance >= 0 && tolerance <= Number.MAX_VALUE)) {
    tolerance = numberOption("toleranceSeconds", tolerance, DEFAULT_TOLERANCE_SECONDS, TOLERANCE_RANGE);
  }
  const now = typeof input.now === "function" ? input.now : functionOption("now", input.now, Date.now);
  const body = input.body;
  if (typeof body !== "string" && !(body instanceof Uint8Array)) checkBody("verify", body);
  headerArgument("id", input.id);
  headerArgument("signature", input.signature);
  return { tolerance, now };
}

/** The three signed headers, present and well-formed. */
interface SignedHeaders {
  ok: true;
  id: string;
  rawTimestamp: string;
  signature: string;
  timestamp: number;
}

const MALFORMED_TIMESTAMP =
  "Malformed webhook-timestamp: send unix time in whole seconds, digits only, exactly as signed.";

function readHeaders(input: Omit<VerifyInput, "secrets" | "publicKeys">): SignedHeaders | Refusal {
  const { id, signature } = input;
  // A number is what sign() takes; its decimal digits are the header text it stands for.
  const rawTimestamp =
    typeof input.timestamp === "number" && Number.isSafeInteger(input.timestamp) && input.timestamp >= 0
      ? String(input.timestamp)
      : input.timestamp;
  if (typeof rawTimestamp === "number") return fail("malformed_timestamp", MALFORMED_TIMESTAMP);
  if (!id || !rawTimestamp || !signature) {
    const missing = [
      !id && "webhook-id",
      !rawTimestamp && "webhook-timestamp",
      !signature && "webhook-signature",
    ];
    return fail("missing_headers", `Missing ${missing.filter(Boolean).join(", ")}. ${SIGNED_HEADERS}`);
  }
  const problem = idProblem(id);
  if (problem) {
    return fail(
      "malformed_id",
      `Malformed webhook-id: ${problem} Send the message id unchanged on every retry.`,
    );
  }
  const timestamp = parseTimestamp(rawTimestamp);
  if (timestamp === null) return fail("malformed_timestamp", MALFORMED_TIMESTAMP);
  return { ok: true, id, rawTimestamp, signature, timestamp };
}

/** Whether the usual request can be decided as text: a provider with a native base64 MAC, and secrets. */
function canMatchText(crypto: CryptoProvider, keys: VerifierKeys): boolean {
  return crypto.hmacSha256Base64Sync !== undefined && keys.secrets.length > 0;
}

/**
 * The usual request, decided without parsing the header into bytes: a `v1` entry whose text is the base64 of the
 * MAC, compared as text in constant time. Anything else takes the full path, which gives the verdict and its message.
 */
function v1TextMatches(
  crypto: CryptoProvider,
  keys: VerifierKeys,
  headers: SignedHeaders,
  body: string | Uint8Array,
): boolean {
  const hmacBase64 = crypto.hmacSha256Base64Sync as NonNullable<CryptoProvider["hmacSha256Base64Sync"]>;
  const head = `${headers.id}.${headers.rawTimestamp}.`;
  const expected = keys.secrets.map((key) => hmacBase64(key, head, body));
  return headerHoldsV1(headers.signature, expected);
}

const CLOCK_ADVICE =
  "Sign every attempt with the current time, and keep sender and receiver clocks in sync (NTP).";

/** The refusal of a timestamp `age` seconds old (negative: in the future) beyond `tolerance`, or null. */
function timestampRefusal(age: number, tolerance: number): VerifyResult | null {
  if (age > tolerance) {
    return fail(
      "timestamp_too_old",
      `The webhook-timestamp is ${age} s in the past, beyond the ${tolerance} s tolerance. ${CLOCK_ADVICE}`,
    );
  }
  if (-age > tolerance) {
    return fail(
      "timestamp_in_future",
      `The webhook-timestamp is ${-age} s in the future, beyond the ${tolerance} s tolerance. ${CLOCK_ADVICE}`,
    );
  }
  return null;
}

/** The byte comparisons of the full path: HMACs of an asynchronous provider, and ed25519 signatures. */
async function compareSignatures(
  crypto: CryptoProvider,
  keys: VerifierKeys,
  message: {
    id: string;
    rawTimestamp: string;
    body: string | Uint8Array;
    parsed: { v1: Uint8Array[]; v1a: Uint8Array[] };
    v1Checked: boolean;
    skipped: string;
    timestamp: number;
  },
): Promise<VerifyResult> {
  const { id, rawTimestamp, parsed, v1Checked, skipped, timestamp } = message;
  let matches = 0;
  if (parsed.v1.length > 0 && !v1Checked) {
    // A provider without a native base64 MAC (WebCrypto): the bytes of each MAC against each decoded signature.
    const content = signedContent(id, rawTimestamp, message.body);
    const expected = await Promise.all(keys.secrets.map((key) => crypto.hmacSha256(key, content)));
    for (const mac of expected) {
      for (const candidate of parsed.v1) matches |= crypto.timingSafeEqual(mac, candidate) ? 1 : 0;
    }
  }
  if (matches !== 1 && parsed.v1a.length > 0) {
    // Public keys and signatures are not secret: stopping at the first valid pair leaks nothing.
    const content = signedContent(id, rawTimestamp, message.body);
    outer: for (const publicKey of keys.publicKeys) {
      for (const candidate of parsed.v1a) {
        if (await crypto.ed25519Verify(publicKey, content, candidate)) {
          matches = 1;
          break outer;
        }
      }
    }
  }
  if (matches !== 1) {
    return fail(
      "no_matching_signature",
      `No ${expectedVersions(keys)} signature matches this body with any configured ${keyNames(keys)}. Check that the sender signs with ${keys.publicKeys.length > 0 ? "the private key of a configured whpk_ public key" : "the same whsec_ secret"} and that the raw body reaches verification unchanged (not re-serialized or re-encoded).${skipped}`,
    );
  }
  return { ok: true, timestamp };
}

/** Whether a `v1,` entry of the header is one of the `expected` base64 MACs; every entry and MAC is compared. */
function headerHoldsV1(header: string, expected: readonly string[]): boolean {
  let matches = 0;
  for (let start = 0; start < header.length; ) {
    const space = header.indexOf(" ", start);
    const end = space === -1 ? header.length : space;
    if (end - start === V1_ENTRY_LENGTH && header.startsWith("v1,", start)) {
      const candidate = header.slice(start + 3, end);
      for (const mac of expected) matches |= sameText(candidate, mac);
    }
    start = end + 1;
  }
  return matches === 1;
}

/** `v1,` and the 44 characters of a 32-byte MAC in padded base64. */
const V1_ENTRY_LENGTH = 47;

/** A header handed to `verify` must be the header text, or null/undefined when absent: anything else is a bug. */
function headerArgument(name: string, value: unknown): void {
  if (typeof value === "string" || value === null || value === undefined) return;
  throw new PlantStoreError(
    "invalid_argument",
    `verify: ${name} must be the webhook-${name} header as a string, or null/undefined when it is absent; got ${describe(value)}.`,
  );
}

function expectedVersions(keys: VerifierKeys): string {
  if (keys.publicKeys.length === 0) return "v1 (HMAC-SHA256)";
  if (keys.secrets.length === 0) return "v1a (ed25519)";
  return "v1 or v1a";
}

function keyNames(keys: VerifierKeys): string {
  if (keys.publicKeys.length === 0) return "secret";
  if (keys.secrets.length === 0) return "public key";
  return "secret or public key";
}

type Refusal = Extract<VerifyResult, { ok: false }>;

function fail(code: VerifyFailure, message: string): Refusal {
  return { ok: false, code, message };
}
