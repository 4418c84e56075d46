import { createSecret, type SigningScheme } from "@plant-store/core";
import { isActiveSecret } from "../active-secrets.js";
import type {
  CreateDestinationInput,
  Destination,
  DestinationStats,
  EndpointOptions,
  UpdateDestinationInput,
} from "../api/destinations.js";
import { StoreConflictError, StoreInputError } from "../errors.js";
import {
  checkNumber,
  checkRateLimit,
  checkTargetHeaders,
  headersColumn,
  headersOf,
} from "./endpoint-options.js";
import type { SecretBox } from "./secret-box.js";
import { checkSigning, type StoredSecret, sealSecrets, storedSecrets } from "./subscription-codec.js";
import { isConsumerUrl, scopeSql, TARGET_ID_PREFIX } from "./target-scope.js";
import { toDate } from "./time.js";
import { checkEventTypes } from "./validate.js";

/** Most attempts in flight one target may allow. */
export const MAX_IN_FLIGHT = 1000;
/** Longest attempt budget a target may set (ms). */
export const MAX_TARGET_TIMEOUT_MS = 300_000;

/**
 * Hosts that are never a destination, whatever the operator allows: cloud metadata services and link-local
 * addresses (the worker's network guard refuses them again after DNS).
 */
const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata",
  "[fd00:ec2::254]",
  "100.100.100.200",
]);
const LINK_LOCAL = /^(169\.254\.\d{1,3}\.\d{1,3}|\[fe[89ab][0-9a-f]:[^\]]*\])$/i;

/** A destination's URL: absolute http(s), no credentials, not a metadata or link-local address. */
export function checkDestinationUrl(url: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === "string" ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new StoreInputError(
      "invalid_url",
      "The destination url must be an absolute http:// or https:// URL.",
    );
  }
  if (parsed.username || parsed.password) {
    throw new StoreInputError(
      "invalid_url",
      "The destination url must not contain credentials; add the service's own credential as a header instead.",
    );
  }
  if (METADATA_HOSTS.has(parsed.hostname.toLowerCase()) || LINK_LOCAL.test(parsed.hostname)) {
    throw new StoreInputError(
      "invalid_url",
      `The destination url points at a cloud metadata or link-local address (${parsed.hostname}), which is always refused.`,
    );
  }
  return parsed.href;
}

/** A destination name: 1 to 100 printable characters. */
export function checkName(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 100 || /\p{Cc}/u.test(value)) {
    throw new StoreInputError("invalid_name", "The destination name must be 1 to 100 printable characters.");
  }
  return value;
}

function checkFlag(value: unknown, what: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean")
    throw new StoreInputError(`invalid_${what}`, `${what} must be true or false.`);
  return value;
}

/** A destination's columns as both backends write them (`headers` and `secrets` as JSON text). */
export interface DestinationColumns {
  name: string;
  url: string;
  eventTypes: string[] | null;
  signing: SigningScheme;
  paused: boolean;
  ordered: boolean;
  maxInFlight: number | null;
  rateLimit: number | null;
  headers: string | null;
  timeoutMs: number | null;
}

/** The endpoint options of a create or a patch, checked; absent fields keep `current`'s. */
function optionColumns(
  input: UpdateDestinationInput & { paused?: boolean | undefined },
  current: EndpointOptions,
) {
  const has = (key: keyof UpdateDestinationInput) => input[key] !== undefined;
  const headers = has("headers") ? checkTargetHeaders(input.headers, false) : current.headers;
  return {
    paused: checkFlag(input.paused, "paused", current.paused),
    ordered: checkFlag(input.ordered, "ordered", current.ordered),
    maxInFlight: has("maxInFlight")
      ? checkNumber(input.maxInFlight, "maxInFlight", 1, MAX_IN_FLIGHT, true)
      : current.maxInFlight,
    rateLimit: has("rateLimit") ? checkRateLimit(input.rateLimit) : current.rateLimit,
    headers: headersColumn(headers),
    timeoutMs: has("timeoutMs")
      ? checkNumber(input.timeoutMs, "timeoutMs", 1, MAX_TARGET_TIMEOUT_MS, true)
      : current.timeoutMs,
  };
}

const NO_OPTIONS: EndpointOptions = {
  paused: false,
  ordered: false,
  maxInFlight: null,
  rateLimit: null,
  headers: {},
  timeoutMs: null,
};

/** Whether a create names an in-process consumer: name and url both `consumer:<name>` (shared/target-scope.ts). */
const isConsumerRow = (input: CreateDestinationInput): boolean =>
  typeof input.url === "string" && isConsumerUrl(input.url) && input.name === input.url;

/**
 * A new destination's columns and its sealed secret (the given one, or a generated `whsec_`).
 *
 * @example
 * ```ts
 * const { columns, secrets } = newDestinationColumns(box, id, { name: "orders", url }, now);
 * ```
 */
export function newDestinationColumns(
  box: SecretBox,
  id: string,
  input: CreateDestinationInput,
  at: number,
): { columns: DestinationColumns; secrets: string } {
  if (input === null || typeof input !== "object") {
    throw new StoreInputError("invalid_argument", "A destination needs at least a name and a url.");
  }
  const columns = {
    name: checkName(input.name),
    url: isConsumerRow(input) ? input.url : checkDestinationUrl(input.url),
    eventTypes: checkEventTypes(input.eventTypes),
    signing: checkSigning(input.signing, "symmetric"),
    ...optionColumns(input, NO_OPTIONS),
  };
  const secrets = JSON.stringify(sealSecrets(box, id, [input.secret ?? createSecret()], at));
  return { columns, secrets };
}

/** The columns after `update(id, patch)`. */
export function patchedDestinationColumns(
  current: Destination,
  patch: UpdateDestinationInput,
): DestinationColumns {
  if (patch === null || typeof patch !== "object") {
    throw new StoreInputError("invalid_argument", "A destination patch must be an object.");
  }
  return {
    name: patch.name === undefined ? current.name : checkName(patch.name),
    url: patch.url === undefined ? current.url : checkDestinationUrl(patch.url),
    eventTypes: patch.eventTypes === undefined ? current.eventTypes : checkEventTypes(patch.eventTypes),
    signing: checkSigning(patch.signing, current.signing),
    ...optionColumns(patch, current),
  };
}

/**
 * What `ensure` changes on an existing destination of the same name: its url, and its signing when one is given;
 * `null` when both are as given.
 *
 * @example
 * ```ts
 * ensurePatch(existing, { name, url, signing: "both" }); // { url, signing: "both" } or null
 * ```
 */
export function ensurePatch(
  existing: Destination,
  input: CreateDestinationInput,
): UpdateDestinationInput | null {
  const signing = input.signing === undefined ? existing.signing : input.signing;
  if (existing.url === input.url && existing.signing === signing) return null;
  return { url: input.url, signing };
}

/**
 * The SQL predicate "`column` is a destination's id" on the target table: the receiver's key range of ids.
 *
 * @example
 * ```ts
 * destinationRows("s.id"); // "s.id >= 'dst_' AND s.id < 'dst`'"
 * ```
 */
export const destinationRows = (column: string): string => scopeSql(column, "receiver");

/**
 * Whether `secret` signs a destination's forwards at `now` (`ensure` rotates to a given secret that does not).
 *
 * @example
 * ```ts
 * if (input.secret !== undefined && !signsWith(existing, input.secret, now)) rotate(existing.id, input.secret);
 * ```
 */
export function signsWith(destination: Destination, secret: string, now: number): boolean {
  return destination.secrets.some(
    (s) => s.secret === secret && isActiveSecret(s.expiresAt === null ? null : s.expiresAt.getTime(), now),
  );
}

/** A destination's queue as either backend counts it (pg: counts and times as int8 text). */
export interface DestinationStatsRow {
  id: string;
  depth: number | string;
  oldest: number | string | null;
  failed: number | string;
  blocked: string | null;
}

/** Row → public `DestinationStats`. */
export function toDestinationStats(row: DestinationStatsRow): DestinationStats {
  return {
    destinationId: row.id,
    depth: Number(row.depth),
    oldestPendingAt: row.oldest === null ? null : new Date(Number(row.oldest)),
    failed: Number(row.failed),
    blockedBehind: row.blocked,
  };
}

/** A new destination's id: `dst_` and a ULID, so destinations list in creation order. */
export function newDestinationId(nextId: () => string): string {
  return `${TARGET_ID_PREFIX.receiver}${nextId().slice(4)}`;
}

/** The error of an operation on a destination that does not exist. */
export function destinationNotFound(id: string): StoreConflictError {
  return new StoreConflictError("not_found", `Destination ${JSON.stringify(id)} does not exist.`);
}

/** The error of a second destination with a name already taken. */
export function nameTaken(name: string): StoreConflictError {
  return new StoreConflictError("name_taken", `A destination named ${JSON.stringify(name)} exists already.`);
}

/** A target row with its destination columns, as either backend returns it. */
export interface DestinationRow {
  id: string;
  name: string | null;
  url: string;
  secrets: string | StoredSecret[];
  enabled: number | boolean;
  event_types: string | string[] | null;
  disabled_reason: string | null;
  disabled_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
  paused: number | boolean;
  ordered: number | boolean;
  max_in_flight: number | null;
  rate_limit: number | null;
  headers: string | Record<string, string> | null;
  timeout_ms: number | null;
  signing: SigningScheme;
}

const bool = (value: number | boolean) => value === true || value === 1;

/** Row → public `Destination`, unsealing its secrets. */
export function decodeDestination(box: SecretBox, row: DestinationRow): Destination {
  return {
    id: row.id,
    name: row.name ?? row.id,
    url: row.url,
    eventTypes: typeof row.event_types === "string" ? JSON.parse(row.event_types) : row.event_types,
    secrets: storedSecrets(row.secrets).map((s) => ({
      secret: box.open(s.secret, `${row.id}:secret`),
      expiresAt: toDate(s.expiresAt),
      createdAt: new Date(s.createdAt),
    })),
    signing: row.signing,
    enabled: bool(row.enabled),
    disabledReason: row.disabled_reason,
    disabledAt: toDate(row.disabled_at),
    paused: bool(row.paused),
    ordered: bool(row.ordered),
    maxInFlight: row.max_in_flight === null ? null : Number(row.max_in_flight),
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
    headers: headersOf(row.headers),
    timeoutMs: row.timeout_ms === null ? null : Number(row.timeout_ms),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}
