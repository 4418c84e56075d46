import { signsWith } from "@plant-store/core";
import type { ClaimedDelivery, ClaimedTarget } from "../api/outbox.js";
import type { SigningScheme } from "../api/subscriptions.js";
import type { SecretBox } from "./secret-box.js";
import { activeSecretsOf, type StoredSecret } from "./subscription-codec.js";

/** What a claim reads of a delivery's subscription: its columns as stored (secrets as JSON text). */
export interface ClaimedSubscriptionRow {
  id: string;
  url: string;
  token: string;
  secrets: string;
  signing: SigningScheme;
  /** The target's extra headers (JSON text or jsonb, NULL for none); the other options a destination's only. */
  headers?: string | Record<string, string> | null;
  timeout_ms?: number | string | null;
  max_in_flight?: number | string | null;
  ordered?: number | boolean;
}

const numberOrNull = (value: number | string | null | undefined) =>
  value === null || value === undefined ? null : Number(value);

/** The options of a claimed target from its row (a subscription's claim reads only its headers). */
function targetOptions(
  row: ClaimedSubscriptionRow,
): Pick<ClaimedTarget, "headers" | "timeoutMs" | "maxInFlight" | "ordered"> {
  const ordered = row.ordered === true || row.ordered === 1;
  return {
    headers:
      typeof row.headers === "string"
        ? (JSON.parse(row.headers) as Record<string, string>)
        : (row.headers ?? null),
    timeoutMs: numberOrNull(row.timeout_ms),
    maxInFlight: ordered ? 1 : numberOrNull(row.max_in_flight),
    ordered,
  };
}

/**
 * Opens each subscription of one claim once (a claim's rows mostly share a few): the token, and the secrets only
 * when the subscription's signing scheme uses them (none for `asymmetric`), those not expired at `at`.
 *
 * @example
 * ```ts
 * const subscriptionOf = claimedSubscriptions(ctx.box, Date.now());
 * subscriptionOf(row.subscription_id, readSubscription); // read and decrypted once per claim
 * ```
 */
export function claimedSubscriptions(
  box: SecretBox,
  at: number,
): (id: string, read: (id: string) => ClaimedSubscriptionRow) => ClaimedDelivery["subscription"] {
  const opened = new Map<string, ClaimedDelivery["subscription"]>();
  return (id, read) => {
    let subscription = opened.get(id);
    if (!subscription) {
      const row = read(id);
      const secrets = signsWith(row.signing).secrets
        ? activeSecretsOf(box, row.id, JSON.parse(row.secrets) as StoredSecret[], at)
        : [];
      subscription = {
        id: row.id,
        url: row.url,
        // A destination has no bearer token (stored empty, never sealed).
        token: row.token === "" ? null : box.open(row.token, `${row.id}:token`),
        secrets,
        signing: row.signing,
        ...targetOptions(row),
      };
      opened.set(id, subscription);
    }
    return subscription;
  };
}
