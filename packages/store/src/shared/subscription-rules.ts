import type {
  CreateSubscriptionInput,
  SigningScheme,
  UpdateSubscriptionInput,
} from "../api/subscriptions.js";
import { StoreConflictError } from "../errors.js";
import { checkMetadata, checkText, checkUid } from "./application-rules.js";
import { checkRateLimit, checkTargetHeaders, headersColumn, headersOf } from "./endpoint-options.js";
import type { SecretBox } from "./secret-box.js";
import {
  checkSigning,
  eventTypesOf,
  type SubscriptionRow,
  sealSecrets,
  sealToken,
  storedSecrets,
} from "./subscription-codec.js";
import { checkEventTypes, checkUrl } from "./validate.js";

/** A subscription's writable columns, checked and sealed, as both backends store them (`secrets` as JSON text). */
export interface SubscriptionColumns {
  uid: string | null;
  description: string;
  /** JSON text. */
  metadata: string;
  url: string;
  token: string;
  secrets: string;
  eventTypes: string[] | null;
  signing: SigningScheme;
  rateLimit: number | null;
  /** JSON text, `null` for none. */
  headers: string | null;
}

/**
 * A new subscription's id: `sub_` and the ULID of a message id, so subscriptions list in creation order.
 *
 * @example
 * ```ts
 * newSubscriptionId(ctx.nextId); // "sub_01J…"
 * ```
 */
export function newSubscriptionId(nextId: () => string): string {
  return `sub_${nextId().slice(4)}`;
}

/**
 * The columns of a subscription `create()` makes, checked in one order on both backends.
 *
 * @example
 * ```ts
 * const columns = createdColumns(box, id, { url: "https://example.com/hook", token: "psk_…" }, now);
 * ```
 */
export function createdColumns(
  box: SecretBox,
  id: string,
  input: CreateSubscriptionInput,
  at: number,
): SubscriptionColumns {
  return {
    uid: input.uid === undefined || input.uid === null ? null : checkUid(input.uid, "subscription"),
    description: checkText(input.description ?? "", "description", 500),
    metadata: checkMetadata(input.metadata ?? {}),
    url: checkUrl(input.url),
    token: sealToken(box, id, input.token),
    secrets: JSON.stringify(sealSecrets(box, id, input.secrets ?? [], at)),
    eventTypes: checkEventTypes(input.eventTypes),
    signing: checkSigning(input.signing, "symmetric"),
    rateLimit: checkRateLimit(input.rateLimit),
    // The subscription's bearer token travels in `authorization`: its headers may not set it.
    headers: headersColumn(checkTargetHeaders(input.headers, true)),
  };
}

/**
 * The columns after `update(id, patch)`: each field the patch gives, checked; the others as `current` holds them.
 *
 * @example
 * ```ts
 * const columns = patchedColumns(box, row, { url: "https://example.com/new" }, now);
 * ```
 */
export function patchedColumns(
  box: SecretBox,
  current: SubscriptionRow,
  patch: UpdateSubscriptionInput,
  at: number,
): SubscriptionColumns {
  const { id } = current;
  return {
    uid:
      patch.uid === undefined ? current.uid : patch.uid === null ? null : checkUid(patch.uid, "subscription"),
    description:
      patch.description === undefined
        ? current.description
        : checkText(patch.description, "description", 500),
    metadata:
      patch.metadata === undefined
        ? typeof current.metadata === "string"
          ? current.metadata
          : JSON.stringify(current.metadata)
        : checkMetadata(patch.metadata),
    url: patch.url === undefined ? current.url : checkUrl(patch.url),
    token: patch.token === undefined ? current.token : sealToken(box, id, patch.token),
    secrets: JSON.stringify(
      patch.secrets === undefined ? storedSecrets(current.secrets) : sealSecrets(box, id, patch.secrets, at),
    ),
    eventTypes:
      patch.eventTypes === undefined ? eventTypesOf(current.event_types) : checkEventTypes(patch.eventTypes),
    signing: checkSigning(patch.signing, current.signing),
    rateLimit:
      patch.rateLimit === undefined
        ? current.rate_limit === null
          ? null
          : Number(current.rate_limit)
        : checkRateLimit(patch.rateLimit),
    headers:
      patch.headers === undefined
        ? headersColumn(headersOf(current.headers))
        : headersColumn(checkTargetHeaders(patch.headers, true)),
  };
}

/**
 * The error of an operation on a subscription that does not exist.
 *
 * @example
 * ```ts
 * if (!row) throw subscriptionNotFound(id);
 * ```
 */
export function subscriptionNotFound(id: string): StoreConflictError {
  return new StoreConflictError("not_found", `Subscription ${JSON.stringify(id)} does not exist.`);
}

/**
 * Why `disableFailing(forMs, reason)` disables: `reason`, or how long the subscription has been failing.
 *
 * @example
 * ```ts
 * failingReason(5 * 86_400_000, undefined); // "failing continuously for more than 432000 s"
 * ```
 */
export function failingReason(forMs: number, reason: string | undefined): string {
  return reason ?? `failing continuously for more than ${Math.round(forMs / 1000)} s`;
}
