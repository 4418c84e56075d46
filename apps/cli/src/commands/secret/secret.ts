import { createSecret } from "@plant-store/core";
import { printJson } from "../../output.js";

/**
 * `plant-store secret create`.
 *
 * @example
 * ```ts
 * secretCreate({}); // whsec_…
 * ```
 */
export function secretCreate(options: { json?: boolean }): void {
  const secret = createSecret();
  if (options.json) printJson({ secret });
  else process.stdout.write(`${secret}\n`);
}
