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
  const active: string[] = [];
  for (const s of subscription.secrets) {
    if (isActiveSecret(s.expiresAt === null ? null : s.expiresAt.getTime(), now)) active.push(s.secret);
  }
  return active;
}

/**
 * Whether a secret expiring at `expiresAt` (ms since the epoch; `null` = never) still signs at `now`: the one
 * definition of an active secret, for the public `Subscription` and the stored secrets alike.
 *
 * @example
 * ```ts
 * isActiveSecret(null, Date.now()); // true
 * isActiveSecret(Date.now() - 1, Date.now()); // false
 * ```
 */
export function isActiveSecret(expiresAt: number | null, now: number): boolean {
  return expiresAt === null || expiresAt > now;
}
