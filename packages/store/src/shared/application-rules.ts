import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import {
  PORTAL_TOKEN_PREFIX,
  PORTAL_TTL_DEFAULT_MS,
  PORTAL_TTL_MAX_MS,
  PORTAL_TTL_MIN_MS,
  UID_PATTERN,
} from "@plant-store/core";
import type {
  Application,
  CreateApplicationInput,
  DeletedApplication,
  UpdateApplicationInput,
} from "../api/applications.js";
import { StoreConflictError, StoreInputError } from "../errors.js";

/** The application existing subscriptions belong to after migration, and that `create` uses when given none. */
export const DEFAULT_APPLICATION_ID = "app_default";
/** The operator's own application: its subscriptions receive the sender's operational webhooks. */
export const OPERATOR_APPLICATION_ID = "app_operator";

/** The applications every store has, which cannot be deleted. */
export function isReservedApplication(id: string): boolean {
  return id === DEFAULT_APPLICATION_ID || id === OPERATOR_APPLICATION_ID;
}

/** Refuses to delete a reserved application (`invalid_application`). */
export function checkDeletable(id: string): void {
  if (isReservedApplication(id)) {
    throw new StoreInputError(
      "invalid_application",
      "The default and operator applications cannot be deleted.",
    );
  }
}
/** The portal rules, defined in `@plant-store/core`. */
export { PORTAL_TOKEN_PREFIX, PORTAL_TTL_DEFAULT_MS, PORTAL_TTL_MAX_MS };

const UID = UID_PATTERN;
const METADATA_KEYS = 32;
const METADATA_VALUE_CHARS = 1000;
const TOKEN = /^pst_[A-Za-z0-9_-]{43}$/;

/** An application's columns as either backend returns them (pg: int8 as strings, jsonb parsed). */
export interface ApplicationRow {
  id: string;
  uid: string;
  name: string;
  metadata: string | Record<string, string>;
  portal_epoch: number | string;
  created_at: number | string;
  updated_at: number | string;
}

/** Row → public `Application`. */
export function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    metadata: typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

/** A deleted application's record as either backend returns it (pg: int8 as strings). */
export interface DeletionRow {
  id: string;
  uid: string;
  name: string;
  subscriptions: number | string;
  deleted_at: number | string;
}

/** Row → public `DeletedApplication`. */
export function toDeletedApplication(row: DeletionRow): DeletedApplication {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    subscriptions: Number(row.subscriptions),
    deletedAt: new Date(Number(row.deleted_at)),
  };
}

/** A new application's id: `app_` and the ULID of a message id. */
export function newApplicationId(nextId: () => string): string {
  return `app_${nextId().slice(4)}`;
}

/** An application's or a subscription's `uid`: 1–100 visible ASCII characters; an application's not `app_…`. */
export function checkUid(value: unknown, what: "application" | "subscription"): string {
  if (typeof value !== "string" || !UID.test(value) || (what === "application" && value.startsWith("app_"))) {
    throw new StoreInputError(
      "invalid_uid",
      `The ${what} uid must be 1 to 100 visible ASCII characters${what === "application" ? " and not start with app_" : ""}.`,
    );
  }
  return value;
}

/** A name or description: text of at most `max` characters (a name not empty). */
export function checkText(value: unknown, field: "name" | "description", max: number): string {
  if (typeof value !== "string" || value.length > max || (field === "name" && value.trim() === "")) {
    throw new StoreInputError(
      `invalid_${field}`,
      `${field} must be text of ${field === "name" ? "1" : "0"} to ${max} characters.`,
    );
  }
  return value;
}

/** Metadata: at most 32 string values, keys 1–64 characters, values at most 1000; stored as JSON text. */
export function checkMetadata(value: unknown): string {
  const entries =
    value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : null;
  const ok =
    entries !== null &&
    entries.length <= METADATA_KEYS &&
    entries.every(
      ([k, v]) =>
        k.length >= 1 && k.length <= 64 && typeof v === "string" && v.length <= METADATA_VALUE_CHARS,
    );
  if (!ok) {
    throw new StoreInputError(
      "invalid_metadata",
      `metadata must be an object of at most ${METADATA_KEYS} string values (keys 1 to 64 characters, values at most ${METADATA_VALUE_CHARS}).`,
    );
  }
  return JSON.stringify(Object.fromEntries(entries));
}

/** The checked columns of a new application. */
export function createdApplication(input: CreateApplicationInput) {
  return {
    uid: checkUid(input.uid, "application"),
    name: checkText(input.name, "name", 200),
    metadata: checkMetadata(input.metadata ?? {}),
  };
}

/** The checked columns after `update(id, patch)`. */
export function patchedApplication(current: Application, patch: UpdateApplicationInput) {
  return {
    uid: patch.uid === undefined ? current.uid : checkUid(patch.uid, "application"),
    name: patch.name === undefined ? current.name : checkText(patch.name, "name", 200),
    metadata: checkMetadata(patch.metadata ?? current.metadata),
  };
}

/** A portal token's lifetime: the default, or a whole number of ms from a minute to a day. */
export function checkPortalTtl(ttlMs: number | undefined): number {
  if (ttlMs === undefined) return PORTAL_TTL_DEFAULT_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < PORTAL_TTL_MIN_MS || ttlMs > PORTAL_TTL_MAX_MS) {
    throw new StoreInputError(
      "invalid_ttl",
      `A portal link lives ${PORTAL_TTL_MIN_MS / 1000} s to ${PORTAL_TTL_MAX_MS / 1000} s.`,
    );
  }
  return ttlMs;
}

/** A new portal token (`pst_` + 32 random bytes, base64url) and the hash that is stored instead of it. */
export function newPortalToken(): { token: string; hash: string } {
  const token = PORTAL_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  return { token, hash: createHash("sha256").update(token).digest("hex") };
}

/** The stored form of a portal token: hex SHA-256. `null` for text that is not a portal token at all. */
export function portalTokenHash(token: string): string | null {
  if (!TOKEN.test(token)) return null;
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Whether the hash a row holds is the presented token's, compared in constant time (the row was found through an
 * index on the hash; this keeps the final comparison free of early exits).
 */
export function sameHash(stored: string, presented: string): boolean {
  const a = Buffer.from(stored, "hex");
  const b = Buffer.from(presented, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A live portal token's row, found by its hash (pg: int8 as a string). */
export interface PortalTokenRow {
  hash: string;
  application_id: string;
  expires_at: number | string;
}

/**
 * What a presented portal token grants: its application and expiry, when the row found for it holds its `hash`
 * ({@link sameHash}); `null` when there is no such row.
 */
export function portalGrant(
  row: PortalTokenRow | undefined,
  hash: string,
): { applicationId: string; expiresAt: Date } | null {
  if (!row || !sameHash(row.hash, hash)) return null;
  return { applicationId: row.application_id, expiresAt: new Date(Number(row.expires_at)) };
}

/**
 * The idempotency key as stored: a publish to one application keeps its key in that application's space
 * (`<application id>` TAB `<key>`; a key cannot hold a tab), so two customers' keys never meet, and the column's
 * UNIQUE constraint serves both spaces.
 */
export function scopedIdempotencyKey(key: string | null, applicationId: string | null): string | null {
  return key === null || applicationId === null ? key : `${applicationId}\t${key}`;
}

/** The key as the publisher gave it, from its stored form. */
export function publishedIdempotencyKey(stored: string | null): string | null {
  if (stored === null) return null;
  const tab = stored.indexOf("\t");
  return tab < 0 ? stored : stored.slice(tab + 1);
}

/** The error of an operation on an application that does not exist. */
export function applicationNotFound(id: string): StoreConflictError {
  return new StoreConflictError("not_found", `Application ${JSON.stringify(id)} does not exist.`);
}

/** A unique violation (SQLite or PostgreSQL) on a uid, as the store's `uid_taken` conflict; anything else as is. */
export function uidConflict(error: unknown, what: "application" | "subscription"): unknown {
  const raw = (error as { cause?: { code?: unknown } })?.cause ?? error;
  const code = (raw as { code?: unknown })?.code;
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505") {
    return new StoreConflictError(
      "uid_taken",
      what === "application"
        ? "Another application has this uid."
        : "Another subscription of this application has this uid.",
    );
  }
  return error;
}
