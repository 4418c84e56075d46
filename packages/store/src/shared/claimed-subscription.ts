import { signsWith } from "@plant-store/core";
import type { ClaimedDelivery } from "../api/outbox.js";
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
        token: box.open(row.token, `${row.id}:token`),
        secrets,
        signing: row.signing,
      };
      opened.set(id, subscription);
    }
    return subscription;
  };
}
