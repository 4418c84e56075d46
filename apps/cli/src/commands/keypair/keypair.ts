import { createKeyPair } from "@plant-store/core";
import { printJson } from "../../output.js";

/**
 * `plant-store keypair create`: an ed25519 key pair for `v1a` signatures.
 *
 * @example
 * ```ts
 * await keypairCreate({}); // private key: whsk_… / public key: whpk_…
 * ```
 */
export async function keypairCreate(options: { json?: boolean }): Promise<void> {
  const { privateKey, publicKey } = await createKeyPair();
  if (options.json) printJson({ privateKey, publicKey });
  else
    process.stdout.write(
      `private key (sender, keep secret): ${privateKey}\npublic key (receivers):         ${publicKey}\n`,
    );
}
