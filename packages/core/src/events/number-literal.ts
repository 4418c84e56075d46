import { readInt64Literal } from "../json/int64-literal.js";

const MARK = Symbol("plant-store.number-literal");

/**
 * A JSON number whose double would misstate its literal, as the exact reader leaves it in a parsed value until
 * validation has judged it: an int64 beyond ±(2^53-1) (`exact` holds it), an integer beyond int64, or a
 * non-integer that a double shows differently (`1.0000000000000001` → 1). An integer property reads it exactly
 * and quotes the literal when it refuses it; a `number` property takes its `value`.
 *
 * It is a function object, not a plain object, so no object or array schema mistakes it for one of its own.
 */
export interface NumberLiteral {
  (): number;
  readonly [MARK]: true;
  readonly literal: string;
  /** The double `JSON.parse` gives. */
  readonly value: number;
  readonly kind: "int64" | "not-integer" | "beyond-int64";
  /** The exact integer, for kind `int64`. */
  readonly exact: bigint | undefined;
}

/**
 * Whether a parsed value is a {@link NumberLiteral}.
 *
 * @example
 * ```ts
 * isNumberLiteral(readNumberLiteral("9007199254740993")); // true
 * isNumberLiteral(1); // false
 * ```
 */
export function isNumberLiteral(value: unknown): value is NumberLiteral {
  return typeof value === "function" && MARK in value;
}

function numberLiteral(
  literal: string,
  value: number,
  kind: NumberLiteral["kind"],
  exact?: bigint,
): NumberLiteral {
  return Object.assign(() => value, { [MARK]: true as const, literal, value, kind, exact });
}

/**
 * Reads one JSON number literal for the exact reader: the number `JSON.parse` gives when its double tells the
 * truth, else a {@link NumberLiteral}.
 *
 * @example
 * ```ts
 * readNumberLiteral("1.5"); // 1.5
 * readNumberLiteral("9007199254740993").exact; // 9007199254740993n
 * ```
 */
export function readNumberLiteral(literal: string): number | NumberLiteral {
  const value = Number(literal);
  if (Number.isFinite(value) && !Number.isInteger(value)) {
    return String(value) === literal ? value : numberLiteral(literal, value, "not-integer");
  }
  const exact = readInt64Literal(literal);
  if (exact === undefined) return value;
  if (exact.kind === "int64") {
    const safe = exact.value >= -Number.MAX_SAFE_INTEGER && exact.value <= Number.MAX_SAFE_INTEGER;
    return safe ? value : numberLiteral(literal, value, "int64", exact.value);
  }
  return numberLiteral(literal, value, exact.kind);
}
