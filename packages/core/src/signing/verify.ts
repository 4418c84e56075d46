import type { CryptoProvider } from "../crypto/types.js";
import { PlantStoreError } from "../errors.js";
import { checkBody, describe, functionOption, numberOption } from "../options.js";
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
 * Input of `verify`: the three Standard Webhooks headers as received, the raw body and the accepted secrets.
 *
 * @example
 * ```ts
 * const input: VerifyInput = { secrets, id: h["webhook-id"], timestamp: h["webhook-timestamp"],
 *   signature: h["webhook-signature"], body: rawBytes };
 * ```
 */
export interface VerifyInput {
  /** Accepted `whsec_` secrets; several during rotation. */
  secrets: readonly string[];
  id: string | null | undefined;
  timestamp: string | null | undefined;
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
  return verifyWithKeys(crypto, parseSecrets(input.secrets), input);
}

/**
 * {@link verifyWith} over secrets decoded once (`parseSecrets`), for callers that verify many messages with the
 * same secrets — the receive pipeline decodes them when it is created, not per request.
 *
 * @example
 * ```ts
 * const keys = parseSecrets(secrets);
 * const result = await verifyWithKeys(crypto, keys, { secrets, id, timestamp, signature, body });
 * ```
 */
export async function verifyWithKeys(
  crypto: CryptoProvider,
  keys: readonly Uint8Array[],
  input: Omit<VerifyInput, "secrets">,
): Promise<VerifyResult> {
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

  const { id, timestamp: rawTimestamp, signature } = input;
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
  if (timestamp === null) {
    return fail(
      "malformed_timestamp",
      "Malformed webhook-timestamp: send unix time in whole seconds, digits only, exactly as signed.",
    );
  }
  const parsed = parseSignatureHeader(signature);
  if (!parsed.ok) return fail("malformed_signature", parsed.message);

  const nowSeconds = Math.floor(now() / 1000);
  const clockAdvice =
    "Sign every attempt with the current time, and keep sender and receiver clocks in sync (NTP).";
  if (nowSeconds - timestamp > tolerance) {
    return fail(
      "timestamp_too_old",
      `The webhook-timestamp is ${nowSeconds - timestamp} s in the past, beyond the ${tolerance} s tolerance. ${clockAdvice}`,
    );
  }
  if (timestamp - nowSeconds > tolerance) {
    return fail(
      "timestamp_in_future",
      `The webhook-timestamp is ${timestamp - nowSeconds} s in the future, beyond the ${tolerance} s tolerance. ${clockAdvice}`,
    );
  }
  const skipped =
    parsed.skipped === 0
      ? ""
      : ` ${parsed.skipped} malformed entr${parsed.skipped === 1 ? "y was" : "ies were"} skipped.`;
  if (parsed.v1.length === 0) {
    return fail(
      "no_matching_signature",
      `webhook-signature carries ${parsed.otherVersions} signature(s) but none of version v1; this receiver verifies v1 (HMAC-SHA256).${skipped}`,
    );
  }

  const hmacSync = crypto.hmacSha256Sync;
  let expected: Uint8Array[];
  if (hmacSync) {
    // The signed content is `${id}.${timestamp}.` + body; fed to the MAC in two parts, it is never copied.
    const head = `${id}.${rawTimestamp}.`;
    expected = keys.map((key) => hmacSync(key, head, input.body));
  } else {
    const content = signedContent(id, rawTimestamp, input.body);
    expected = await Promise.all(keys.map((key) => crypto.hmacSha256(key, content)));
  }
  let matches = 0;
  for (const mac of expected) {
    for (const candidate of parsed.v1) matches |= crypto.timingSafeEqual(mac, candidate) ? 1 : 0;
  }
  if (matches !== 1) {
    return fail(
      "no_matching_signature",
      `No v1 signature matches this body with any configured secret. Check that sender and receiver share the same whsec_ secret and that the raw body reaches verification unchanged (not re-serialized or re-encoded).${skipped}`,
    );
  }
  return { ok: true, timestamp };
}

/** A header handed to `verify` must be the header text, or null/undefined when absent: anything else is a bug. */
function headerArgument(name: string, value: unknown): void {
  if (typeof value === "string" || value === null || value === undefined) return;
  throw new PlantStoreError(
    "invalid_argument",
    `verify: ${name} must be the webhook-${name} header as a string, or null/undefined when it is absent; got ${describe(value)}.`,
  );
}

function fail(code: VerifyFailure, message: string): VerifyResult {
  return { ok: false, code, message };
}
