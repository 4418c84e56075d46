import type { HandleOptions } from "./handler.js";

/**
 * What an adapter passes to `handle` after running `preflight` on the same request and getting null: built once.
 *
 * @example
 * ```ts
 * const response = handler.preflight(head) ?? (await handler.handle({ ...head, body }, PREFLIGHTED));
 * ```
 */
export const PREFLIGHTED: HandleOptions = Object.freeze({ preflighted: true });
