/** Milliseconds since the epoch from a `Date` or a number. */
export function toMillis(value: Date | number): number {
  const ms = typeof value === "number" ? value : value.getTime();
  if (!Number.isFinite(ms)) throw new RangeError("Expected a valid date or a finite number of milliseconds.");
  return Math.trunc(ms);
}

/** A date column (`null` stays `null`); pg returns int8 as a string. */
export function toDate(value: number | string | null | undefined): Date | null {
  return value === null || value === undefined ? null : new Date(Number(value));
}
