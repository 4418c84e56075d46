import { PAGE_SIZE } from "@plant-store/core";
import { StoreInputError } from "../errors.js";

/**
 * Opaque page cursor for keyset pagination on a numeric key (newest first: the next page holds keys
 * below it).
 *
 * @example
 * ```ts
 * decodeCursor(encodeCursor(42)); // 42
 * ```
 */
export function encodeCursor(key: number): string {
  return Buffer.from(`k:${key}`, "utf8").toString("base64url");
}

/** The key inside a cursor; `null` for no cursor; throws `invalid_cursor` for anything else. */
export function decodeCursor(cursor: string | null | undefined): number | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  const match = /^k:(\d{1,16})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const key = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(key)) {
    throw new StoreInputError(
      "invalid_cursor",
      "The cursor is not one this store returned; start again without it.",
    );
  }
  return key;
}

/** Clamps a page size to 1..`PAGE_SIZE.max` (default `PAGE_SIZE.default`). */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return PAGE_SIZE.default;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new StoreInputError("invalid_limit", "limit must be a positive integer.");
  }
  return Math.min(limit, PAGE_SIZE.max);
}

/**
 * How many of a page's rows fit in `maxBytes` (their sizes in page order): every row up to the one that would go
 * past it, and always at least one, so a page always moves on.
 *
 * @example
 * ```ts
 * fitBytes([400, 400, 400], 1000); // 2
 * fitBytes([5000], 1000); // 1
 * ```
 */
export function fitBytes(sizes: readonly number[], maxBytes: number): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i] as number;
    if (total > maxBytes) return Math.max(1, i);
  }
  return sizes.length;
}

/** A page's byte bound: a positive whole number, or undefined (no bound); throws `invalid_argument` otherwise. */
export function pageMaxBytes(maxBytes: number | undefined): number | undefined {
  if (maxBytes === undefined) return undefined;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
    throw new StoreInputError("invalid_argument", "maxBytes must be a whole number of bytes, at least 1.");
  return maxBytes;
}
