import type { Subscription } from "./api/subscriptions.js";

/**
 * The secrets to sign with at `now`: those without an expiry or expiring later.
 *
 * @example
 * ```ts
 * const header = await signatureHeader({ secrets: activeSecrets(sub), id, timestamp, body });
 * ```
 */
export function activeSecrets(
  subscription: Pick<Subscription, "secrets">,
  now: number = Date.now(),
): string[] {
  return subscription.secrets
    .filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now)
    .map((s) => s.secret);
}
