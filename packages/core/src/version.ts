/**
 * The version of `@plant-store/core`, kept in source because JSON imports are not portable across
 * runtimes; `version.test.ts` fails when it drifts from package.json.
 *
 * @example
 * ```ts
 * import { VERSION } from "@plant-store/core";
 * `plant-store/${VERSION}`; // "plant-store/0.1.0"
 * ```
 */
export const VERSION = "0.1.0";
