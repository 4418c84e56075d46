import * as z from "zod";
import { INT64_MAX, INT64_MIN, type Int64Literal } from "../json/int64-literal.js";
import { describeValue, shorten } from "./describe.js";

/**
 * How ids are read: `safe` as numbers within ±(2^53-1), `lossless` as bigints over the whole int64 range.
 *
 * @example
 * ```ts
 * const mode: ParseMode = process.env.PLANT_STORE_LOSSLESS ? "lossless" : "safe";
 * ```
 */
export type ParseMode = "safe" | "lossless";

const MISSING = 'id is missing. Add the plant\'s id as a JSON integer, e.g. "id": 1.';

const notInteger = (shown: string) => `id must be an integer; got ${shown}. Send a whole number.`;
const beyondInt64 = (shown: string) =>
  `id ${shown} is outside the int64 range [${INT64_MIN}, ${INT64_MAX}]. Send an id that fits in a signed 64-bit integer.`;
const beyondSafe = (shown: string) =>
  `id ${shown} is beyond 2^53-1 (${Number.MAX_SAFE_INTEGER}), so a JavaScript number would round it; ` +
  `the default (safe) mode rejects it rather than change it. Parse with { mode: "lossless" } to receive ids ` +
  `up to 2^63-1 exactly as bigint, or send an id within ±${Number.MAX_SAFE_INTEGER}.`;

function wrongType(value: unknown): string {
  if (value === undefined) return MISSING;
  if (typeof value === "bigint") {
    return `id is a bigint, but the safe mode takes a number. Use NewPlantLossless (mode: "lossless") for bigint ids.`;
  }
  const hint = typeof value === "string" ? ' Send it as a JSON number without quotes, e.g. "id": 1.' : "";
  return `id must be an integer; got ${describeValue(value)}.${hint}`;
}

/** The message for a number id that is not a safe integer: which rule it breaks and what to send instead. */
function numberProblem(value: number, mode: ParseMode): string {
  if (Number.isNaN(value)) return notInteger("NaN");
  const shown = shorten(String(value));
  if (Number.isFinite(value) && !Number.isInteger(value)) return notInteger(shown);
  // A double is an int64 iff -2^63 <= value < 2^63 (2^63-1 itself is not a double).
  if (!(value >= -(2 ** 63) && value < 2 ** 63)) return beyondInt64(shown);
  return mode === "safe"
    ? beyondSafe(shown)
    : `id ${shown} is a JavaScript number beyond 2^53-1, so it may already be rounded. Pass it as a bigint.`;
}

/**
 * The message for an id whose exact source literal (see `readInt64Literal`) is not acceptable in `mode`, or
 * `undefined` when it is. Messages quote the literal as sent, not its rounded double.
 *
 * @example
 * ```ts
 * idLiteralProblem("9007199254740993", { kind: "int64", value: 9007199254740993n }, "safe");
 * // 'id 9007199254740993 is beyond 2^53-1 (9007199254740991), so a JavaScript number would round it; …'
 * ```
 */
export function idLiteralProblem(literal: string, exact: Int64Literal, mode: ParseMode): string | undefined {
  const shown = shorten(literal);
  if (exact.kind === "not-integer") return notInteger(shown);
  if (exact.kind === "beyond-int64") return beyondInt64(shown);
  const safe = exact.value >= -Number.MAX_SAFE_INTEGER && exact.value <= Number.MAX_SAFE_INTEGER;
  return safe || mode === "lossless" ? undefined : beyondSafe(shown);
}

/**
 * The `id` of the default mode: a safe integer (`z.int()`), with messages that explain ids beyond 2^53-1.
 *
 * @example
 * ```ts
 * SafeId.parse(42); // 42
 * SafeId.safeParse(2 ** 60).success; // false: "… beyond 2^53-1 … { mode: "lossless" } …"
 * ```
 */
export const SafeId = z.int({
  error: (issue) =>
    typeof issue.input === "number" ? numberProblem(issue.input, "safe") : wrongType(issue.input),
});

/**
 * The `id` of the lossless mode: a `bigint` in the int64 range, or a safe-integer `number`; the output is
 * always a `bigint`. Unsafe numbers are refused: they may already have lost digits.
 *
 * @example
 * ```ts
 * LosslessId.parse(9223372036854775807n); // 9223372036854775807n
 * LosslessId.parse(7); // 7n
 * ```
 */
export const LosslessId = z
  .union([z.bigint(), z.number()], { error: (issue) => wrongType(issue.input) })
  .check((context) => {
    const { value } = context;
    let message: string | undefined;
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) message = numberProblem(value, "lossless");
    } else if (value < INT64_MIN || value > INT64_MAX) message = beyondInt64(shorten(String(value)));
    if (message) context.issues.push({ code: "custom", message, input: value });
  })
  .transform((value) => BigInt(value));
