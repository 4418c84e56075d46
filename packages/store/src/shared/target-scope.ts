import type { TargetScope } from "../api/outbox.js";
import { StoreInputError } from "../errors.js";

/**
 * The id prefix of each scope's targets: a sender's subscriptions are `sub_…`, a receiver's destinations `dst_…`.
 * The id says whose a target is, so a claim takes the key range of its scope (`subscription_id >= lo AND < hi`, on
 * the deliveries row itself, no join) and a sender and a receiver sharing a database never take each other's work.
 */
export const TARGET_ID_PREFIX: Readonly<Record<TargetScope, string>> = { sender: "sub_", receiver: "dst_" };

/** The scopes a claim may name. */
export const TARGET_SCOPES: readonly TargetScope[] = ["sender", "receiver"];

/**
 * The half-open id range `[lo, hi)` of a scope's targets: the prefix, and the prefix with its last character's
 * successor (`_` + 1 = `` ` ``).
 *
 * @example
 * ```ts
 * scopeRange("receiver"); // ["dst_", "dst`"]
 * ```
 */
export function scopeRange(scope: TargetScope): [lo: string, hi: string] {
  const lo = TARGET_ID_PREFIX[scope];
  return [lo, `${lo.slice(0, -1)}${String.fromCharCode(lo.charCodeAt(lo.length - 1) + 1)}`];
}

/** A claim's `scope` option checked (absent → `sender`). */
export function checkScope(value: unknown): TargetScope {
  if (value === undefined) return "sender";
  if (typeof value === "string" && (TARGET_SCOPES as readonly string[]).includes(value))
    return value as TargetScope;
  throw new StoreInputError("invalid_scope", `scope must be one of ${TARGET_SCOPES.join(", ")}.`);
}

/**
 * The URL scheme that marks a receiver target as an in-process consumer (`inbox.consume`), not an HTTP destination:
 * its row is `{ name: "consumer:<name>", url: "consumer:<name>" }`. Events fan out to it like to any destination;
 * only a claim naming it as its `target` takes its deliveries.
 */
export const CONSUMER_SCHEME = "consumer:";

/** Whether a target's url marks an in-process consumer. */
export const isConsumerUrl = (url: string): boolean => url.startsWith(CONSUMER_SCHEME);

/** A claim's `target` option checked: absent → `null`; only a receiver's claim may name one. */
export function checkClaimTarget(value: unknown, scope: TargetScope): string | null {
  if (value === undefined) return null;
  if (scope !== "receiver" || typeof value !== "string" || !inScope(value, scope)) {
    throw new StoreInputError(
      "invalid_target",
      "target must be a receiver target id (dst_…) of a receiver claim.",
    );
  }
  return value;
}

/** Whether a target id belongs to `scope`. */
export const inScope = (id: string, scope: TargetScope): boolean => id.startsWith(TARGET_ID_PREFIX[scope]);

/**
 * The SQL predicate "`column` is one of `scope`'s targets" as a key range (literals from {@link scopeRange}), for
 * statements that read targets, such as a publish's fan-out, which only ever reaches the sender's subscriptions.
 */
export function scopeSql(column: string, scope: TargetScope): string {
  const [lo, hi] = scopeRange(scope);
  return `${column} >= '${lo}' AND ${column} < '${hi}'`;
}
