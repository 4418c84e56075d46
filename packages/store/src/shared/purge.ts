import type { PurgeOptions } from "../api/store.js";
import { StoreInputError } from "../errors.js";
import { toMillis } from "./time.js";

/** Rows of each kind one purge batch deletes by default: one short transaction, never a long table lock. */
export const PURGE_BATCH_SIZE = 1000;

/**
 * A purge's cut-off in epoch ms and its batch size, checked.
 *
 * @example
 * ```ts
 * purgeLimits({ before: new Date(0) }); // { before: 0, batchSize: 1000 }
 * ```
 */
export function purgeLimits(options: PurgeOptions): { before: number; batchSize: number } {
  const batchSize = options?.batchSize ?? PURGE_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 100_000)
    throw new StoreInputError("invalid_argument", "batchSize must be a whole number from 1 to 100000.");
  return { before: toMillis(options?.before), batchSize };
}
