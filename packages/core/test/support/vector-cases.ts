import { createHmac, createPrivateKey, createPublicKey, sign as ed25519Sign } from "node:crypto";
import type { VerifyFailure } from "../../src/signing/verify.js";

/** One entry of `vectors.json`. */
export interface Vector {
  name: string;
  description: string;
  secrets: string[];
  /** `whpk_` public keys the receiver holds (v1a). */
  publicKeys: string[];
  id: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
  now: number;
  toleranceSeconds: number;
  expected: { ok: true; timestamp: number } | { ok: false; code: VerifyFailure };
}

export interface VectorsFile {
  $comment: string;
  /** The ed25519 key pairs the v1a vectors use; signatures are deterministic, so signing reproduces them. */
  keyPairs: { name: string; privateKey: string; publicKey: string }[];
  vectors: Vector[];
}

const STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD = "whsec_4LhSXqhTq/I3QcScrtBgluRP8fJOpMvGN2zR7PU+aJo=";
const NEW = "whsec_QpjrgwOD39OePrtwSk03l2nKxrwxTBOu1+5PLGoqnM0=";
const OTHER = "whsec_VU0LAR5uv/aMjuRJUoTNrCtVxK/8X92BKXVlGbuBzm8=";
// RFC 8410 DER prefixes around a raw ed25519 key.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX_BYTES = 12;
const ID = "msg_01JDZK8M3V9Q6W0H7F2TNXRB5C";
const PAIR_1 = keyPair("pair-1", 0x11);
const PAIR_2 = keyPair("pair-2", 0x22);
const PAIR_3 = keyPair("pair-3", 0x33);
const TS = 1_732_252_800;
const BODY = '{"id":10,"name":"doggie","tag":"available"}';

interface Case {
  name: string;
  description: string;
  /** Secrets the receiver holds; default `[OLD]`. */
  secrets?: string[];
  /** Public keys the receiver holds; default none. */
  publicKeys?: string[];
  /** Private keys the sender signed with (v1a, after the v1 signatures); default none. */
  signedWithKeys?: string[];
  id?: string | null;
  timestamp?: string | null;
  body?: string;
  now?: number;
  toleranceSeconds?: number;
  /** Secrets the sender signed with; default: the receiver's. */
  signedWith?: string[];
  /** What the sender signed, when the request differs from it (tampering). */
  signedOver?: { id?: string; timestamp?: string; body?: string };
  /** A literal header, or a rewrite of the correctly signed one. */
  signature?: string | null | ((signed: string) => string);
  expected: "ok" | VerifyFailure;
}

const CASES: Case[] = [
  {
    name: "standard-webhooks-reference",
    description:
      "The public Standard Webhooks example; the signature must be v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=.",
    secrets: [STANDARD_SECRET],
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: "1614265330",
    body: '{"test": 2432232314}',
    now: 1614265330,
    expected: "ok",
  },
  {
    name: "valid",
    description: "A New Plant event signed with the receiver's secret, 10 s ago.",
    expected: "ok",
  },
  {
    name: "wrong-secret",
    description: "Signed with a secret the receiver does not hold.",
    signedWith: [OTHER],
    expected: "no_matching_signature",
  },
  {
    name: "tampered-body",
    description: "The body differs from the signed one (name changed).",
    signedOver: { body: BODY.replace("doggie", "kitty") },
    expected: "no_matching_signature",
  },
  {
    name: "tampered-body-whitespace",
    description:
      "The body gained a trailing newline after signing (e.g. re-serialized); the signature covers raw bytes.",
    body: `${BODY}\n`,
    signedOver: { body: BODY },
    expected: "no_matching_signature",
  },
  {
    name: "tampered-id",
    description: "The webhook-id differs from the signed one.",
    signedOver: { id: "msg_01JDZK8M3V9Q6W0H7F2TNXRB5D" },
    expected: "no_matching_signature",
  },
  {
    name: "tampered-timestamp",
    description: "The webhook-timestamp differs from the signed one by 1 s, still inside the tolerance.",
    signedOver: { timestamp: String(TS - 1) },
    expected: "no_matching_signature",
  },
  {
    name: "stale",
    description: "Signed 301 s before the receiver's clock: outside the 300 s tolerance.",
    now: TS + 301,
    expected: "timestamp_too_old",
  },
  {
    name: "stale-boundary",
    description: "Signed exactly 300 s before the receiver's clock: the boundary is inside the tolerance.",
    now: TS + 300,
    expected: "ok",
  },
  {
    name: "future",
    description: "Signed 301 s after the receiver's clock: outside the 300 s tolerance.",
    now: TS - 301,
    expected: "timestamp_in_future",
  },
  {
    name: "future-boundary",
    description: "Signed exactly 300 s after the receiver's clock: the boundary is inside the tolerance.",
    now: TS - 300,
    expected: "ok",
  },
  {
    name: "custom-tolerance",
    description: "Signed 61 s ago with a receiver tolerance of 60 s.",
    now: TS + 61,
    toleranceSeconds: 60,
    expected: "timestamp_too_old",
  },
  {
    name: "rotated-several-signatures",
    description:
      "The sender signs with the old and the new secret; the receiver already holds only the new one.",
    secrets: [NEW],
    signedWith: [OLD, NEW],
    expected: "ok",
  },
  {
    name: "rotated-several-secrets",
    description: "The sender signs with the new secret only; the receiver holds the old and the new one.",
    secrets: [OLD, NEW],
    signedWith: [NEW],
    expected: "ok",
  },
  {
    name: "rotated-no-overlap",
    description: "Several signatures and several secrets, but no secret in common.",
    secrets: [OLD, NEW],
    signedWith: [OTHER, STANDARD_SECRET],
    expected: "no_matching_signature",
  },
  {
    name: "other-versions-ignored",
    description: "Entries of other versions (v1a, v2) are skipped; the v1 entry verifies.",
    signature: (signed) => `v1a,aGVsbG8gd29ybGQ= v2,anything ${signed}`,
    expected: "ok",
  },
  {
    name: "only-other-versions",
    description: "No v1 entry at all: nothing this receiver can verify.",
    signature: () => "v1a,aGVsbG8gd29ybGQ=",
    expected: "no_matching_signature",
  },
  {
    name: "missing-v1-prefix",
    description: "The signature without its 'v1,' version prefix.",
    signature: (signed) => signed.slice(3),
    expected: "malformed_signature",
  },
  {
    name: "bad-base64",
    description: "The v1 signature is not valid base64.",
    signature: () => "v1,not*valid*base64",
    expected: "malformed_signature",
  },
  {
    name: "short-signature",
    description: "The v1 signature is valid base64 but 16 bytes, not the 32 of HMAC-SHA256.",
    signature: () => "v1,AAECAwQFBgcICQoLDA0ODw==",
    expected: "malformed_signature",
  },
  {
    name: "malformed-entry-beside-valid",
    description:
      "A malformed v1 entry before the valid one: malformed entries are skipped (as the Standard Webhooks reference does).",
    signature: (signed) => `v1,notbase64!! ${signed}`,
    expected: "ok",
  },
  {
    name: "empty-entry-after-valid",
    description: "A trailing empty 'v1,' entry after the valid one is skipped.",
    signature: (signed) => `${signed} v1,`,
    expected: "ok",
  },
  {
    name: "malformed-entry-beside-wrong",
    description:
      "A malformed entry next to a well-formed signature that does not match: no match, not malformed.",
    signedWith: [OTHER],
    signature: (signed) => `v1,notbase64!! ${signed}`,
    expected: "no_matching_signature",
  },
  {
    name: "only-malformed-entries",
    description: "Several entries, none well-formed: the header is malformed.",
    signature: () => "v1,not*valid*base64 v1, AAECAwQFBgcICQoLDA0ODw==",
    expected: "malformed_signature",
  },
  {
    name: "blank-signature",
    description: "The webhook-signature header holds only spaces.",
    signature: () => "   ",
    expected: "malformed_signature",
  },
  {
    name: "id-with-dot",
    description:
      "An id with dots is accepted, as the Standard Webhooks reference accepts it: the signed content cannot be re-split into another valid id and timestamp, which must be digits.",
    id: "evt.2024.1",
    expected: "ok",
  },
  {
    name: "id-with-space",
    description:
      "A correctly computed signature, but the id contains a space; ids are 1 to 256 visible ASCII characters.",
    id: "msg 01JDZK8M3V9Q6W0H7F2TNXRB5C",
    expected: "malformed_id",
  },
  {
    name: "id-too-long",
    description: "A correctly computed signature over a 257-character id; ids are at most 256 characters.",
    id: "m".repeat(257),
    expected: "malformed_id",
  },
  {
    name: "timestamp-with-dot",
    description:
      "A correctly computed signature over a fractional timestamp; timestamps are whole seconds, digits only.",
    timestamp: `${TS}.5`,
    expected: "malformed_timestamp",
  },
  {
    name: "timestamp-not-digits",
    description: "A timestamp in exponent notation.",
    timestamp: "1.7322528e9",
    expected: "malformed_timestamp",
  },
  {
    name: "timestamp-negative",
    description: "A negative timestamp.",
    timestamp: `-${TS}`,
    expected: "malformed_timestamp",
  },
  {
    name: "missing-signature",
    description: "No webhook-signature header.",
    signature: null,
    expected: "missing_headers",
  },
  {
    name: "empty-signature",
    description: "An empty webhook-signature header counts as missing.",
    signature: () => "",
    expected: "missing_headers",
  },
  { name: "missing-id", description: "No webhook-id header.", id: null, expected: "missing_headers" },
  {
    name: "empty-timestamp",
    description: "An empty webhook-timestamp header counts as missing.",
    timestamp: "",
    expected: "missing_headers",
  },
  {
    name: "unicode-body",
    description: "A body with non-ASCII characters, signed as its UTF-8 bytes.",
    body: '{"id":11,"name":"Monstera déliciosa 🌿","tag":"観葉植物"}',
    expected: "ok",
  },
  {
    name: "empty-body",
    description: "An empty body is signed as nothing after the second dot.",
    body: "",
    expected: "ok",
  },
  {
    name: "v1a-valid",
    description: "An ed25519 (v1a) signature; the receiver holds only the public key.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWithKeys: [PAIR_1.privateKey],
    expected: "ok",
  },
  {
    name: "v1a-wrong-key",
    description: "Signed with a private key whose public key the receiver does not hold.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWithKeys: [PAIR_2.privateKey],
    expected: "no_matching_signature",
  },
  {
    name: "v1a-tampered-body",
    description: "A v1a signature over another body (name changed).",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWithKeys: [PAIR_1.privateKey],
    signedOver: { body: BODY.replace("doggie", "kitty") },
    expected: "no_matching_signature",
  },
  {
    name: "v1a-tampered-timestamp",
    description: "A v1a signature over a timestamp 1 s earlier than the one sent.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWithKeys: [PAIR_1.privateKey],
    signedOver: { timestamp: String(TS - 1) },
    expected: "no_matching_signature",
  },
  {
    name: "v1a-rotated-several-keys",
    description: "The sender signs with the new key only; the receiver holds the old and the new public key.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey, PAIR_2.publicKey],
    signedWithKeys: [PAIR_2.privateKey],
    expected: "ok",
  },
  {
    name: "v1a-rotated-several-signatures",
    description:
      "The sender signs with the old and the new key; the receiver already holds only the new one.",
    secrets: [],
    publicKeys: [PAIR_2.publicKey],
    signedWithKeys: [PAIR_1.privateKey, PAIR_2.privateKey],
    expected: "ok",
  },
  {
    name: "v1a-stale",
    description: "A valid v1a signature, 301 s old: the timestamp window applies to v1a too.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWithKeys: [PAIR_1.privateKey],
    now: TS + 301,
    expected: "timestamp_too_old",
  },
  {
    name: "v1a-short-signature",
    description: "A v1a value that is base64 of 32 bytes, not of a 64-byte ed25519 signature.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signature: () => `v1a,${Buffer.alloc(32, 1).toString("base64")}`,
    expected: "malformed_signature",
  },
  {
    name: "mixed-v1-v1a-secret-receiver",
    description:
      "A sender migrating to ed25519 signs with both; a receiver holding only the secret verifies v1.",
    signedWithKeys: [PAIR_1.privateKey],
    expected: "ok",
  },
  {
    name: "mixed-v1-v1a-key-receiver",
    description:
      "A sender migrating to ed25519 signs with both; a receiver holding only the public key verifies v1a.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWith: [OLD],
    signedWithKeys: [PAIR_1.privateKey],
    expected: "ok",
  },
  {
    name: "mixed-wrong-v1-right-v1a",
    description:
      "The receiver holds a secret and a public key; the v1 signature is from another secret, the v1a one is valid.",
    publicKeys: [PAIR_1.publicKey],
    signedWith: [OTHER],
    signedWithKeys: [PAIR_1.privateKey],
    expected: "ok",
  },
  {
    name: "mixed-both-wrong",
    description: "The receiver holds a secret and a public key; neither signature matches them.",
    publicKeys: [PAIR_1.publicKey],
    signedWith: [OTHER],
    signedWithKeys: [PAIR_3.privateKey],
    expected: "no_matching_signature",
  },
  {
    name: "v1-only-key-receiver",
    description: "Only a v1 signature; the receiver holds only a public key, so nothing it can verify.",
    secrets: [],
    publicKeys: [PAIR_1.publicKey],
    signedWith: [OLD],
    expected: "no_matching_signature",
  },
];

/** Builds `vectors.json` from the cases, signing with node:crypto directly (independent of `src/signing`). */
export function buildVectors(): VectorsFile {
  return {
    $comment:
      "Standard Webhooks v1 (HMAC) and v1a (ed25519) test vectors of @plant-store/core, generated by test/support/vector-cases.ts (UPDATE_VECTORS=1 vitest run test/vectors.test.ts). For each vector, verify(secrets, publicKeys, id, timestamp, signature, body) with the clock at `now` (unix seconds) and `toleranceSeconds` must give `expected`: { ok: true, timestamp } or { ok: false, code }. A null header is absent; `body` is sent as its UTF-8 bytes.",
    keyPairs: [PAIR_1, PAIR_2, PAIR_3],
    vectors: CASES.map(toVector),
  };
}

function toVector(c: Case): Vector {
  const secrets = c.secrets ?? [OLD];
  const id = c.id === undefined ? ID : c.id;
  const timestamp = c.timestamp === undefined ? String(TS) : c.timestamp;
  const body = c.body ?? BODY;
  const over = [
    c.signedOver?.id ?? id ?? "",
    c.signedOver?.timestamp ?? timestamp ?? "",
    c.signedOver?.body ?? body,
  ] as const;
  const signed = [
    ...(c.signedWith ?? secrets).map((secret) => hmac(secret, ...over)),
    ...(c.signedWithKeys ?? []).map((key) => ed25519(key, ...over)),
  ].join(" ");
  const signature =
    typeof c.signature === "function"
      ? c.signature(signed)
      : c.signature === undefined
        ? signed
        : c.signature;
  const expected =
    c.expected === "ok"
      ? { ok: true as const, timestamp: Number(timestamp) }
      : { ok: false as const, code: c.expected };
  return {
    name: c.name,
    description: c.description,
    secrets,
    publicKeys: c.publicKeys ?? [],
    id,
    timestamp,
    signature,
    body,
    now: c.now ?? TS + 10,
    toleranceSeconds: c.toleranceSeconds ?? 300,
    expected,
  };
}

function hmac(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`;
}

/** A key pair from a fixed seed, serialized with node:crypto directly (independent of `src/signing`). */
function keyPair(name: string, fill: number): { name: string; privateKey: string; publicKey: string } {
  const seed = Buffer.alloc(32, fill);
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(key).export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX_BYTES);
  return {
    name,
    privateKey: `whsk_${Buffer.concat([seed, publicKey]).toString("base64")}`,
    publicKey: `whpk_${publicKey.toString("base64")}`,
  };
}

function ed25519(privateKey: string, id: string, timestamp: string, body: string): string {
  const seed = Buffer.from(privateKey.slice("whsk_".length), "base64").subarray(0, 32);
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  return `v1a,${ed25519Sign(null, Buffer.from(`${id}.${timestamp}.${body}`, "utf8"), key).toString("base64")}`;
}
