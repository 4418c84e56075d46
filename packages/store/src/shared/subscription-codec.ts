import { parseSecret, SIGNING_SCHEMES } from "@plant-store/core";
import { isActiveSecret } from "../active-secrets.js";
import type { SecretInput, SigningScheme, SigningSecret, Subscription } from "../api/subscriptions.js";
import { StoreInputError } from "../errors.js";
import { headersOf } from "./endpoint-options.js";
import type { SecretBox } from "./secret-box.js";
import { toDate, toMillis } from "./time.js";
import { checkCredential } from "./validate.js";

/** A subscriptions row as either backend returns it (pg: booleans and int8 strings, jsonb parsed). */
export interface SubscriptionRow {
  id: string;
  application_id: string;
  uid: string | null;
  description: string;
  /** SQLite: JSON text; pg: jsonb. */
  metadata: string | Record<string, string>;
  url: string;
  token: string;
  secrets: string | StoredSecret[];
  signing: SigningScheme;
  enabled: number | boolean;
  /** SQLite: JSON text; pg: text[]; NULL = every event type. */
  event_types: string | string[] | null;
  disabled_reason: string | null;
  disabled_at: number | string | null;
  failing_since: number | string | null;
  /** pg: a double, SQLite: REAL; NULL = no limit. */
  rate_limit: number | string | null;
  /** SQLite: JSON text; pg: jsonb; NULL = none. */
  headers: string | Record<string, string> | null;
  created_at: number | string;
  updated_at: number | string;
}

/** How one secret is kept in the `secrets` JSON column; `secret` is sealed. */
export interface StoredSecret {
  secret: string;
  expiresAt: number | null;
  createdAt: number;
}

const tokenAad = (id: string) => `${id}:token`;
const secretAad = (id: string) => `${id}:secret`;

/** Validates and seals a bearer token for row `id`. */
export function sealToken(box: SecretBox, id: string, token: unknown): string {
  return box.seal(checkCredential(token, "token"), tokenAad(id));
}

/** Validates and seals secrets for row `id`. */
export function sealSecrets(
  box: SecretBox,
  id: string,
  secrets: readonly SecretInput[],
  now: number,
): StoredSecret[] {
  if (!Array.isArray(secrets)) throw new StoreInputError("invalid_secret", "secrets must be an array.");
  return secrets.map((input) => {
    const { secret, expiresAt } = typeof input === "string" ? { secret: input, expiresAt: null } : input;
    return {
      secret: box.seal(checkSecret(secret), secretAad(id)),
      expiresAt: expiresAt === null || expiresAt === undefined ? null : toMillis(expiresAt),
      createdAt: now,
    };
  });
}

/** A Standard Webhooks secret core can sign with (`whsec_` + base64); messages never echo it. */
function checkSecret(secret: unknown): string {
  checkCredential(secret, "secret");
  try {
    parseSecret(secret as string);
  } catch (cause) {
    throw new StoreInputError("invalid_secret", (cause as Error).message, { cause });
  }
  return secret as string;
}

/** The signing schemes a subscription may choose; defined once for the store, the sender and its admin API. */
export { SIGNING_SCHEMES } from "@plant-store/core";

/** Validates a subscription's `signing` (absent → `fallback`). */
export function checkSigning(value: unknown, fallback: SigningScheme): SigningScheme {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (SIGNING_SCHEMES as readonly string[]).includes(value)) {
    return value as SigningScheme;
  }
  throw new StoreInputError(
    "invalid_signing",
    `signing must be one of ${SIGNING_SCHEMES.join(", ")} (v1 HMAC, v1a ed25519, or both during a migration).`,
  );
}

/** Decodes the stored JSON (SQLite text or pg jsonb) without unsealing. */
export function storedSecrets(value: string | StoredSecret[]): StoredSecret[] {
  return typeof value === "string" ? (JSON.parse(value) as StoredSecret[]) : value;
}

/** Row → public `Subscription`, unsealing credentials. */
export function decodeSubscription(box: SecretBox, row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    applicationId: row.application_id,
    uid: row.uid,
    description: row.description,
    metadata: typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata,
    url: row.url,
    token: box.open(row.token, tokenAad(row.id)),
    secrets: storedSecrets(row.secrets).map(
      (s): SigningSecret => ({
        secret: box.open(s.secret, secretAad(row.id)),
        expiresAt: toDate(s.expiresAt),
        createdAt: new Date(s.createdAt),
      }),
    ),
    signing: row.signing,
    enabled: row.enabled === true || row.enabled === 1,
    eventTypes: eventTypesOf(row.event_types),
    disabledReason: row.disabled_reason,
    disabledAt: toDate(row.disabled_at),
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
    headers: headersOf(row.headers),
    failingSince: toDate(row.failing_since),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

/**
 * The event type filter a row holds (SQLite: JSON text; pg: text[]); `null` = every event type.
 *
 * @example
 * ```ts
 * eventTypesOf('["newPlant"]'); // ["newPlant"]
 * ```
 */
export function eventTypesOf(value: string | string[] | null): string[] | null {
  return typeof value === "string" ? (JSON.parse(value) as string[]) : value;
}

/**
 * The secrets a sender signs with at `now`: unsealed, expired ones left out. Built by `push`, not `map`: the claim
 * hands the array on to the signing code, and `push` keeps its V8 array map stable.
 */
export function activeSecretsOf(
  box: SecretBox,
  id: string,
  value: string | StoredSecret[],
  now: number,
): string[] {
  const active: string[] = [];
  for (const s of storedSecrets(value)) {
    if (isActiveSecret(s.expiresAt, now)) active.push(box.open(s.secret, secretAad(id)));
  }
  return active;
}

/** Rotation: the new secret, and every open-ended one set to expire at `now + graceMs`. */
export function rotateStoredSecrets(
  box: SecretBox,
  id: string,
  current: StoredSecret[],
  secret: string,
  now: number,
  graceMs: number,
): StoredSecret[] {
  const kept = current
    .filter((s) => isActiveSecret(s.expiresAt, now))
    .map((s) => (s.expiresAt === null ? { ...s, expiresAt: now + graceMs } : s));
  return [...kept, ...sealSecrets(box, id, [secret], now)];
}
