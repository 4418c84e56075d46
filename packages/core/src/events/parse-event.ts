import type { WebhookEntry } from "@plant-store/spec";
import { parse as parseLenient } from "lossless-json";
import { PlantStoreError } from "../errors.js";
import { rootMemberLiteral } from "../json/root-member-literal.js";
import { decodeUtf8 } from "../json/utf8.js";
import { checkBody } from "../options.js";
import { type CompiledSchema, compileSchema, type ParseMode } from "./compile-schema.js";
import { describeIssues, type Issue, toIssues } from "./issues.js";
import { isNumberLiteral, readNumberLiteral } from "./number-literal.js";

/**
 * The outcome of a parse: the value, or why it was refused (`json` → 400, `schema` → 422).
 *
 * @example
 * ```ts
 * const result = parseEvent(entry, body);
 * const status = result.ok ? 200 : result.kind === "json" ? 400 : 422;
 * ```
 */
export type ParseResult<T> =
  | { ok: true; value: T }
  | { ok: false; kind: "json" | "schema"; issues: Issue[]; message: string };

/** Options of {@link parseEvent}. */
export interface ParseOptions {
  /** `lossless` (default): every int64 accepted, `format: int64` values as `bigint`. `safe`: numbers only. */
  mode?: ParseMode | undefined;
}

/**
 * Whether `text` may hold a number literal whose double misrepresents it: 16 digits in a row, one dot allowed after
 * each (2^53 has 16 digits, and a double keeps 15 significant ones), or an exponent (a digit then `e`/`E`). Any other
 * text parses the same through `JSON.parse`, several times faster. The same answer as `/(?:\d\.?){16}|\d[eE]/`
 * (tested), in one pass without a regex call, which is cheaper on the receive path.
 *
 * @example
 * ```ts
 * mayMisreadANumber('{"id":9007199254740993}'); // true
 * mayMisreadANumber('{"id":42,"name":"Fern"}'); // false
 * ```
 */
export function mayMisreadANumber(text: string): boolean {
  let run = 0; // digits of the current run
  let afterDigit = false; // the previous character is a digit (a dot or an exponent may follow)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) {
      if (++run === 16) return true;
      afterDigit = true;
    } else if (afterDigit && (code === 0x65 || code === 0x45)) {
      return true;
    } else if (afterDigit && code === 0x2e) {
      afterDigit = false; // one dot, then the run goes on only with a digit
    } else {
      run = 0;
      afterDigit = false;
    }
  }
  return false;
}

const compiled = new WeakMap<WebhookEntry, Record<ParseMode, CompiledSchema | undefined>>();

/**
 * The validator of a catalog entry in a mode, compiled on first use and kept with the entry.
 *
 * @example
 * ```ts
 * eventValidator(catalog[0], "safe").zod.safeParse({ id: 1, name: "x" }).success; // true
 * ```
 */
export function eventValidator(entry: WebhookEntry, mode: ParseMode): CompiledSchema {
  let byMode = compiled.get(entry);
  if (!byMode) {
    byMode = { safe: undefined, lossless: undefined };
    compiled.set(entry, byMode);
  }
  byMode[mode] ??= compileEntry(entry, mode, true);
  return byMode[mode];
}

function compileEntry(entry: WebhookEntry, mode: ParseMode, transform: boolean): CompiledSchema {
  return compileSchema(entry.schema, {
    mode,
    transform,
    name: `${entry.name} event`,
    example: entry.examples[0]?.value,
  });
}

const checkers = new WeakMap<WebhookEntry, CompiledSchema>();

/** The lossless validator of an entry without zod transforms: what `parseEvent` checks with. */
function eventChecker(entry: WebhookEntry): CompiledSchema {
  let checker = checkers.get(entry);
  if (!checker) {
    checker = compileEntry(entry, "lossless", false);
    checkers.set(entry, checker);
  }
  return checker;
}

/**
 * Parses and validates one event's raw body (UTF-8 bytes or text) against its webhook's JSON Schema. Never
 * throws for any input. The value is the parsed JSON itself, every property kept in order. No integer is ever
 * rounded: a literal a double would change is read exactly; `lossless` (default) hands `format: int64` values
 * over as `bigint`, `safe` refuses those beyond ±(2^53-1) with a message naming the pointer. `1.0`, `1e3` and `-0`
 * are integers, as in JSON Schema. A leading byte order mark is ignored; duplicate keys keep the last.
 *
 * @example
 * ```ts
 * import { catalog } from "@plant-store/spec";
 * const result = parseEvent(catalog[0], '{"id": 9223372036854775807, "name": "x"}');
 * if (result.ok) result.value.id; // 9223372036854775807n
 * ```
 */
export function parseEvent(
  entry: WebhookEntry,
  raw: string | Uint8Array,
  options: ParseOptions = {},
): ParseResult<unknown> {
  const mode = options.mode ?? "lossless";
  if (mode !== "safe" && mode !== "lossless") {
    throw new PlantStoreError(
      "invalid_option",
      `Unknown parse mode ${JSON.stringify(mode)}; use "lossless" (default) or "safe".`,
    );
  }
  checkBody("parseEvent", raw);
  const what = `one ${entry.name} event`;
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
  const exact = mayMisreadANumber(text);
  try {
    value = exact ? parseExactly(text) : JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.replace(/\.$/, "");
    return jsonFailure(
      text.trim() === ""
        ? `The body is empty. Send ${what} as a JSON object.`
        : `The body is not valid JSON: ${detail}. Send ${what} as a JSON object.`,
    );
  }

  // zod checks; the value it would output is not used (see below), so a lossless check skips int64 transforms.
  const validator = mode === "lossless" ? eventChecker(entry) : eventValidator(entry, mode);
  const result = validator.zod.safeParse(value);
  if (!result.success) {
    const issues = toIssues(result.error);
    return {
      ok: false,
      kind: "schema",
      issues,
      message: describeIssues(`The body does not match the ${entry.name} schema.`, issues),
    };
  }
  // The parsed value, not zod's copy: zod rebuilds objects, reorders keys and leaves out an own `__proto__`.
  if (exact) value = settleNumbers(value, mode);
  if (validator.convert) value = validator.convert(value);
  return { ok: true, value };
}

/** Like `JSON.parse`, but a number whose double would misstate its literal stays exact (see readNumberLiteral). */
function parseExactly(text: string): unknown {
  try {
    return parseLenient(text, null, {
      parseNumber: readNumberLiteral,
      onDuplicateKey: (duplicate) => duplicate.newValue,
    });
  } catch (error) {
    // lossless-json recurses and overflows the stack past ~5,000 levels of nesting, where `JSON.parse` does not:
    // its verdict on invalid JSON (and its message) stands; a deep valid document is read by `JSON.parse`.
    // Its root members' literals are still read exactly (the deep nesting is elsewhere).
    if (error instanceof SyntaxError) throw error;
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      for (const [key, member] of Object.entries(record)) {
        if (typeof member !== "number" || Number.isSafeInteger(member)) continue;
        const literal = rootMemberLiteral(text, key);
        if (literal !== undefined) record[key] = readNumberLiteral(literal);
      }
    }
    return value;
  }
}

/**
 * After validation: the numbers no schema node claimed go back to what `JSON.parse` gives (a marked literal to its
 * double; in safe mode a bigint to its number), so undeclared properties look as they always did.
 */
function settleNumbers(root: unknown, mode: ParseMode): unknown {
  const settle = (value: unknown) =>
    isNumberLiteral(value)
      ? value.exact !== undefined && mode === "lossless"
        ? value.exact
        : value.value
      : value;
  // An explicit stack: a document may nest deeper than the call stack goes.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(record)) {
      const value = record[key as string];
      if (typeof value === "object") stack.push(value);
      else if (typeof value === "function") record[key as string] = settle(value);
    }
  }
  return settle(root);
}

function jsonFailure(message: string): ParseResult<never> {
  return { ok: false, kind: "json", issues: [{ pointer: "", message }], message };
}
