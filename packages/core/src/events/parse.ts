import { PlantStoreError } from "../errors.js";
import { parseJsonLossless } from "../json/parse-lossless.js";
import { decodeUtf8 } from "../json/utf8.js";
import { checkBody } from "../options.js";
import type { ParseMode } from "./id.js";
import { checkIdLiteral } from "./id-literal.js";
import { describeIssues, type Issue, toIssues } from "./issues.js";
import { NewPlant, NewPlantLossless } from "./plant.js";

/**
 * The outcome of {@link parseNewPlant}: the event, or why it was refused (`json` → 400, `schema` → 422).
 *
 * @example
 * ```ts
 * const result: ParseResult<NewPlant> = parseNewPlant(body);
 * const status = result.ok ? 200 : result.kind === "json" ? 400 : 422;
 * ```
 */
export type ParseResult<T> =
  | { ok: true; value: T }
  | { ok: false; kind: "json" | "schema"; issues: Issue[]; message: string };

/**
 * Options of {@link parseNewPlant}.
 *
 * @example
 * ```ts
 * const options: ParseOptions = { mode: "lossless" };
 * ```
 */
export interface ParseOptions {
  /** `safe` (default): `id` is a number within ±(2^53-1). `lossless`: `id` is a bigint over all of int64. */
  mode?: ParseMode | undefined;
}

const EXAMPLE = 'e.g. {"id": 1, "name": "Monstera"}';
// Only a number literal with 16 digits in a row (2^53 has 16) or an exponent can be an integer that a double rounds;
// a text with neither parses the same through `JSON.parse` as losslessly, several times faster.
const MAY_HOLD_A_BIG_INTEGER = /\d{16}|\d[eE]/;

/**
 * Parses and validates a New Plant payload from the raw body (UTF-8 bytes or text). Never throws for any
 * input. The value is the parsed JSON itself, every property kept in order; in lossless mode its `id` is a
 * `bigint`. No id is ever rounded: in safe mode an id beyond ±(2^53-1) is a `schema` issue at `/id` that
 * points to `{ mode: "lossless" }`; in both modes an id outside int64, or not an integer (also `1.5`, or a
 * `1.0000000000000001` that a double would make 1), is refused. `1.0`, `1e3` and `-0` are integers, as in
 * JSON Schema. A leading byte order mark is ignored; duplicate keys keep the last, as `JSON.parse` does.
 *
 * @example
 * ```ts
 * const safe = parseNewPlant('{"id": 1, "name": "Monstera"}');
 * if (safe.ok) safe.value.id; // 1
 *
 * const big = parseNewPlant(new TextEncoder().encode('{"id": 9223372036854775807, "name": "x"}'), { mode: "lossless" });
 * if (big.ok) big.value.id; // 9223372036854775807n
 *
 * const refused = parseNewPlant('{"id": 9007199254740993, "name": "x"}');
 * if (!refused.ok) refused.issues; // [{ pointer: "/id", message: 'id 9007199254740993 is beyond 2^53-1 … { mode: "lossless" } …' }]
 * ```
 */
export function parseNewPlant(
  raw: string | Uint8Array,
  options?: { mode?: "safe" | undefined },
): ParseResult<NewPlant>;
export function parseNewPlant(
  raw: string | Uint8Array,
  options: { mode: "lossless" },
): ParseResult<NewPlantLossless>;
export function parseNewPlant(
  raw: string | Uint8Array,
  options?: ParseOptions,
): ParseResult<NewPlant | NewPlantLossless>;
export function parseNewPlant(
  raw: string | Uint8Array,
  options: ParseOptions = {},
): ParseResult<NewPlant | NewPlantLossless> {
  const mode = options.mode ?? "safe";
  if (mode !== "safe" && mode !== "lossless") {
    throw new PlantStoreError(
      "invalid_option",
      `Unknown parse mode ${JSON.stringify(mode)}; use "safe" or "lossless".`,
    );
  }
  checkBody("parseNewPlant", raw);
  let text: string;
  if (typeof raw === "string") text = raw;
  else {
    const decoded = decodeUtf8(raw);
    if (!decoded.ok) {
      const byte = decoded.byte.toString(16).toUpperCase().padStart(2, "0");
      return jsonFailure(
        `The body is not valid UTF-8: the byte sequence at offset ${decoded.offset} (0x${byte}) is ill-formed. Send the JSON encoded as UTF-8.`,
      );
    }
    text = decoded.text;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  let value: unknown;
  try {
    value =
      mode === "lossless" && MAY_HOLD_A_BIG_INTEGER.test(text) ? parseLosslessly(text) : JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.replace(/\.$/, "");
    return jsonFailure(
      text.trim() === ""
        ? `The body is empty. Send the plant as a JSON object, ${EXAMPLE}.`
        : `The body is not valid JSON: ${detail}. Send the plant as a JSON object, ${EXAMPLE}.`,
    );
  }

  const verdict = checkIdLiteral(text, value, mode);
  if (verdict && "exact" in verdict && mode === "lossless") (value as { id: unknown }).id = verdict.exact;
  const result = (mode === "lossless" ? NewPlantLossless : NewPlant).safeParse(value);
  let issues = result.success ? [] : toIssues(result.error);
  if (verdict && "problem" in verdict) {
    issues = [
      { pointer: "/id", message: verdict.problem },
      ...issues.filter((issue) => issue.pointer !== "/id"),
    ];
  }
  if (issues.length > 0) {
    return {
      ok: false,
      kind: "schema",
      issues,
      message: describeIssues("The body does not match the NewPlant schema.", issues),
    };
  }
  // The parsed value, not zod's copy: zod rebuilds the object and leaves out an own `__proto__` key.
  const plant = value as NewPlant | NewPlantLossless;
  if (mode === "lossless" && typeof plant.id === "number") plant.id = BigInt(plant.id);
  return { ok: true, value: plant };
}

function parseLosslessly(text: string): unknown {
  try {
    return parseJsonLossless(text);
  } catch {
    // lossless-json recurses and overflows the stack somewhere past ~5,000 levels of nesting, where
    // `JSON.parse` does not. Its verdict (and its error message, for invalid JSON) is the reference; the id
    // stays exact either way, since `checkIdLiteral` reads an unsafe id from its literal.
    return JSON.parse(text);
  }
}

function jsonFailure(message: string): ParseResult<never> {
  return { ok: false, kind: "json", issues: [{ pointer: "", message }], message };
}
