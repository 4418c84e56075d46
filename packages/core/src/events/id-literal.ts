import { readInt64Literal } from "../json/int64-literal.js";
import { rootMemberLiteral } from "../json/root-member-literal.js";
import { idLiteralProblem, type ParseMode } from "./id.js";

// A parsed `id` can misrepresent its literal in two ways, and only these need the literal itself:
// 1. It is an integer-valued double of 2^53 or more, or ±Infinity: every literal of that size becomes one,
//    whether it was an int64 (9007199254740993 → …992), beyond int64 (9223372036854775808), or a fraction
//    (9007199254740993.5 → …994). Only the literal tells which.
// 2. It is a safe integer, but the literal was not an integer: 1.0000000000000001 → 1, 1e-400 → 0. A decimal
//    with at most 15 significant digits survives the round trip through a double (DBL_DIG = 15), so a
//    non-integer one stays a non-integer, except below ~2.5e-324, which rounds to 0; writing that takes an
//    exponent of three digits or 300-odd zeros. So a text without 16 digits in a row (a dot allowed between
//    them) and without an `e-ddd` cannot hide such a literal, and the common case never looks for it.
// Any other number is refused anyway; its literal is read too, only so that the message quotes what was sent.
const MAY_HIDE_A_FRACTION = /(?:\d\.?){16}|[eE]-\d{3}/;

/** What the literal of the root `id` adds to the parsed value: a problem, the exact integer, or nothing. */
export type IdLiteralVerdict = { problem: string } | { exact: bigint } | undefined;

/**
 * Looks at the source literal of the root object's `id` when the parsed number may differ from it, and
 * judges the literal exactly in `mode`. Returns `undefined` when the parsed value already tells the truth.
 *
 * @example
 * ```ts
 * const text = '{"id": 9007199254740993, "name": "x"}';
 * checkIdLiteral(text, JSON.parse(text), "safe"); // { problem: "id 9007199254740993 is beyond 2^53-1 …" }
 * checkIdLiteral(text, JSON.parse(text), "lossless"); // { exact: 9007199254740993n }
 * ```
 */
export function checkIdLiteral(text: string, root: unknown, mode: ParseMode): IdLiteralVerdict {
  if (typeof root !== "object" || root === null || Array.isArray(root)) return undefined;
  const id = (root as { id?: unknown }).id;
  if (typeof id !== "number") return undefined;
  if (Number.isSafeInteger(id) && !MAY_HIDE_A_FRACTION.test(text)) return undefined;
  const literal = rootMemberLiteral(text, "id");
  const exact = literal === undefined ? undefined : readInt64Literal(literal);
  if (literal === undefined || exact === undefined) return undefined;
  const problem = idLiteralProblem(literal, exact, mode);
  if (problem !== undefined) return { problem };
  return exact.kind === "int64" ? { exact: exact.value } : undefined;
}
