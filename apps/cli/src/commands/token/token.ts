import { checkTokenFormat, createToken, hashToken } from "@plant-store/core";
import { CliError } from "../../cli-error.js";
import { printJson } from "../../output.js";

/**
 * `plant-store token create`: a new psk_ token and its hash.
 *
 * @example
 * ```ts
 * await tokenCreate({ json: true }); // {"token":"psk_…","hash":"sha256:…"}
 * ```
 */
export async function tokenCreate(options: { json?: boolean }): Promise<void> {
  const token = createToken();
  const hash = await hashToken(token);
  if (options.json) printJson({ token, hash });
  else process.stdout.write(`${token}\n# receivers may store the hash instead: ${hash}\n`);
}

/**
 * `plant-store token hash <token>`.
 *
 * @example
 * ```ts
 * await tokenHash("psk_…", {});
 * ```
 */
export async function tokenHash(token: string, options: { json?: boolean }): Promise<void> {
  let hash: string;
  try {
    hash = await hashToken(token);
  } catch (error) {
    throw new CliError((error as Error).message, 2); // the argument cannot be a token: a usage error
  }
  if (options.json) printJson({ hash });
  else process.stdout.write(`${hash}\n`);
}

/**
 * `plant-store token check <token>`: exit 1 when the format or checksum is wrong.
 *
 * @example
 * ```ts
 * tokenCheck("psk_typo", {}); // exit code 1, with the reason
 * ```
 */
export function tokenCheck(token: string, options: { json?: boolean }): void {
  const result = checkTokenFormat(token);
  if (options.json) printJson(result.ok ? { valid: true } : { valid: false, reason: result.reason });
  else process.stdout.write(result.ok ? "valid psk_ token\n" : `invalid: ${result.reason}\n`);
  if (!result.ok) process.exitCode = 1;
}
