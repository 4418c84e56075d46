import type { CryptoProvider } from "../crypto/types.js";
import { toHex, utf8Encode } from "../encoding.js";
import { PlantStoreError } from "../errors.js";
import { clearTokenProblem } from "./accepted-token.js";

/**
 * `sha256:<hex>` of a token over an explicit crypto implementation; `hashToken` binds `#crypto`.
 *
 * @example
 * ```ts
 * import * as web from "./crypto/web.js";
 * await hashTokenWith(web, "psk_…"); // "sha256:9f86…"
 * ```
 */
export async function hashTokenWith(crypto: CryptoProvider, token: string): Promise<string> {
  const problem = clearTokenProblem(token);
  // Hashing a token that can never be presented would store a configuration that silently never matches.
  if (problem) throw new PlantStoreError("invalid_token", `This token cannot be hashed for use: ${problem}`);
  return `sha256:${toHex(await crypto.sha256(utf8Encode(token)))}`;
}
