import type { SigningScheme } from "@plant-store/core";

/**
 * Why a target may not sign with `signing` in an app that holds no ed25519 private key (`flag` names the app's
 * option for one), or `null` when it may: v1a (`asymmetric`, `both`) needs a key, v1 does not. One rule for the
 * sender's subscriptions and the receiver's destinations.
 *
 * @example
 * ```ts
 * signingKeyProblem("both", false, "--private-key"); // 'signing "both" needs … --private-key whsk_… …'
 * ```
 */
export function signingKeyProblem(
  signing: SigningScheme | undefined,
  holdsKey: boolean,
  flag: string,
): string | null {
  if (signing === undefined || signing === "symmetric" || holdsKey) return null;
  return `signing "${signing}" needs an ed25519 private key: start it with ${flag} whsk_… (create one with \`plant-store keypair create\`).`;
}
