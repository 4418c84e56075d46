import type { JsonSchema } from "@plant-store/spec";
import * as z from "zod";
import { INT64_MAX, INT64_MIN } from "../json/int64-literal.js";
import { describeValue, shorten } from "./describe.js";
import {
  beyondInt64,
  beyondSafe,
  bound,
  notAllowed,
  notInteger,
  outOfRange,
  type Place,
  typePhrase,
  wrongType,
} from "./messages.js";
import { isNumberLiteral, type NumberLiteral } from "./number-literal.js";

/**
 * How integers are read: `lossless` (the default) takes every int64 and hands `format: int64` values over as
 * `bigint`; `safe` hands numbers over and refuses integers beyond ±(2^53-1), which a number would round.
 *
 * @example
 * ```ts
 * const mode: ParseMode = "lossless";
 * ```
 */
export type ParseMode = "safe" | "lossless";

/** A validator compiled from a JSON Schema: zod for the checks, plus the in-place int64 conversion of `lossless`. */
export interface CompiledSchema {
  /** Validates a parsed value (numbers may be `bigint` or {@link NumberLiteral}); outputs converted values. */
  readonly zod: z.ZodType;
  /** Converts the `format: int64` numbers of a valid value to `bigint`, in place; null when there is nothing to do. */
  readonly convert: Converter | null;
}

type Converter = (value: unknown) => unknown;
type Schema = Record<string, unknown>;

// Keywords compiled here, with messages that name the property and say what to send. A node with any other
// validation keyword (oneOf, not, if, patternProperties, multipleOf, …) is handed to zod's own converter,
// `z.fromJSONSchema`: still checked, with zod's wording.
const ANNOTATIONS = new Set([
  "description",
  "title",
  "example",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "$schema",
  "$id",
  "format",
  "discriminator",
  "xml",
  "externalDocs",
]);
/** The keywords compiled here that apply to values of one kind only (to every value when a node has no `type`). */
const KIND_KEYWORDS = {
  object: ["properties", "required", "additionalProperties"],
  array: ["items", "minItems", "maxItems"],
  string: ["minLength", "maxLength", "pattern"],
  number: ["minimum", "maximum"],
} as const;
const HANDLED = new Set<string>([
  "type",
  "enum",
  "const",
  "allOf",
  "anyOf",
  ...Object.values(KIND_KEYWORDS).flat(),
  ...ANNOTATIONS,
]);
const INT32 = { min: -(2n ** 31n), max: 2n ** 31n - 1n };

/**
 * Compiles a JSON Schema (refs resolved, as the catalog holds it) into a zod validator whose messages name the
 * property, what it must be and what to send, with OpenAPI's `format: int64` read exactly in both modes.
 *
 * @example
 * ```ts
 * const { zod } = compileSchema(catalog[0].schema, { mode: "safe", name: "New Plant event" });
 * zod.safeParse({ name: "x" }).error?.issues[0].message; // 'id is missing. Add id as a JSON integer, e.g. "id": 1.'
 * ```
 */
export function compileSchema(
  schema: JsonSchema,
  options: {
    mode: ParseMode;
    name: string;
    example?: unknown;
    /**
     * Whether the zod schema outputs `bigint` for `format: int64` (default). Without, it only checks (cheaper per
     * call): for callers that keep the parsed value and run `convert`.
     */
    transform?: boolean;
  },
): CompiledSchema {
  return compileNode(
    schema,
    { key: options.name, optional: false, example: options.example },
    { mode: options.mode, transform: options.transform ?? true },
    true,
  );
}

/** What a compile makes: the parse mode, and whether int64 values are transformed in zod's output. */
interface Target {
  mode: ParseMode;
  transform: boolean;
}

function compileNode(schema: JsonSchema, place: Place, mode: Target, root = false): CompiledSchema {
  if (schema === true) return { zod: z.unknown(), convert: null };
  if (schema === false)
    return { zod: z.never({ error: () => `${place.key} is not allowed. Leave it out.` }), convert: null };
  const node = flattenAllOf(schema as Schema);
  if (Object.keys(node).some((keyword) => !HANDLED.has(keyword))) {
    return { zod: z.fromJSONSchema(node as z.core.JSONSchema.JSONSchema), convert: null };
  }
  const example = place.example ?? firstExample(node);
  const here: Place = { ...place, example };
  if (Array.isArray(node.allOf)) {
    // The parts only check (zod cannot merge one part's bigint output with another's number); the int64
    // conversions of every part run once on the value they all accepted.
    const checking = { ...mode, transform: false };
    const parts = (node.allOf as JsonSchema[]).map((part) => compileNode(part, here, checking, root));
    const rest = compileNode(withoutKeys(node, ["allOf"]), here, checking, root);
    const zod = parts.reduce<z.ZodType>((all, part) => z.intersection(all, part.zod), rest.zod);
    const convert = chain([rest, ...parts].map((part) => part.convert));
    return { zod: mode.transform && convert ? zod.transform(convert) : zod, convert };
  }
  if (Array.isArray(node.anyOf)) {
    const options = (node.anyOf as JsonSchema[]).map((option) => compileNode(option, here, mode, root));
    const rest = withoutKeys(node, ["anyOf"]);
    const union = z.union(options.map((option) => option.zod) as [z.ZodType, ...z.ZodType[]], {
      error: (issue) => `${here.key} matches none of the allowed shapes; got ${describeValue(issue.input)}.`,
    });
    return {
      zod:
        Object.keys(rest).length > 0 ? z.intersection(compileNode(rest, here, mode, root).zod, union) : union,
      convert: firstMatchConvert(node.anyOf as JsonSchema[], here, mode, root, (option) => option),
    };
  }
  if (Array.isArray(node.enum) || "const" in node) return enumNode(node, here);
  const types = Array.isArray(node.type) ? (node.type as string[]) : node.type ? [node.type as string] : [];
  if (types.length > 1) {
    const options = types.map((type) => compileNode({ ...node, type }, here, mode, root));
    return {
      zod: z.union(options.map((option) => option.zod) as [z.ZodType, ...z.ZodType[]], {
        error: (issue) => wrongType(here, types.join(" or "), issue.input),
      }),
      convert: firstMatchConvert(types, here, mode, root, (type) => ({ ...node, type })),
    };
  }
  switch (types[0]) {
    case "object":
      return objectNode(node, here, mode, root);
    case "array":
      return arrayNode(node, here, mode);
    case "string":
      return { zod: stringNode(node, here), convert: null };
    case "integer":
      return integerNode(node, here, mode);
    case "number":
      return numberNode(node, here);
    case "boolean":
      return { zod: z.boolean({ error: (issue) => wrongType(here, "boolean", issue.input) }), convert: null };
    case "null":
      return { zod: z.null({ error: (issue) => wrongType(here, "null", issue.input) }), convert: null };
    default:
      return anyKindNode(node, here, mode, root);
  }
}

/**
 * A node without `type`: any JSON value is allowed, and each keyword applies to the values of its kind only, as
 * JSON Schema says (`properties` to objects, `items` to arrays, `minLength` to strings, `minimum` to numbers);
 * `{ properties: … }` takes a string, `{ minimum: 0 }` takes `"x"` and refuses -1.
 */
function anyKindNode(node: Schema, place: Place, mode: Target, root: boolean): CompiledSchema {
  const has = (kind: keyof typeof KIND_KEYWORDS) => KIND_KEYWORDS[kind].some((keyword) => keyword in node);
  const byKind: Partial<Record<ValueKind, CompiledSchema>> = {
    ...(has("object") && { object: objectNode(node, place, mode, root) }),
    ...(has("array") && { array: arrayNode(node, place, mode) }),
    ...(has("string") && { string: { zod: stringNode(node, place), convert: null } }),
    ...(has("number") && { number: numberNode(node, place) }),
  };
  if (Object.keys(byKind).length === 0) return { zod: z.unknown(), convert: null };
  const judge = (value: unknown, issues: z.core.$ZodRawIssue[]) => {
    const result = byKind[kindOf(value)]?.zod.safeParse(value);
    if (result && !result.success) {
      for (const { message, path } of result.error.issues)
        issues.push({ code: "custom", message, path, input: value });
    }
    return result?.success ? result.data : value;
  };
  return {
    zod: mode.transform
      ? z.unknown().transform((value, context) => judge(value, context.issues))
      : z.unknown().check((context) => {
          judge(context.value, context.issues);
        }),
    convert: Object.values(byKind).some((compiled) => compiled.convert)
      ? (value) => byKind[kindOf(value)]?.convert?.(value) ?? value
      : null,
  };
}

type ValueKind = "object" | "array" | "string" | "number" | "other";

/** The JSON kind of a parsed value (an exactly read number literal and a bigint are numbers). */
function kindOf(value: unknown): ValueKind {
  if (typeof value === "number" || typeof value === "bigint" || isNumberLiteral(value)) return "number";
  if (typeof value === "string") return "string";
  if (Array.isArray(value)) return "array";
  return isObject(value) ? "object" : "other";
}

function objectNode(node: Schema, place: Place, mode: Target, root: boolean): CompiledSchema {
  const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const shape: Record<string, z.ZodType> = {};
  const converters: [string, Converter][] = [];
  const examples = (isObject(place.example) ? place.example : {}) as Record<string, unknown>;
  for (const [key, child] of Object.entries(properties)) {
    const optional = !required.has(key);
    const compiled = compileNode(child, { key, optional, example: examples[key] }, mode);
    shape[key] = optional ? compiled.zod.optional() : compiled.zod;
    if (compiled.convert) converters.push([key, compiled.convert]);
  }
  for (const key of required) {
    if (!(key in shape)) {
      shape[key] = z.unknown().check((context) => {
        if (context.value === undefined) {
          context.issues.push({
            code: "custom",
            message: `${key} is missing. Add it.`,
            input: context.value,
          });
        }
      });
    }
  }
  const what = root ? `A${/^[aeiou]/i.test(place.key) ? "n" : ""} ${place.key}` : place.key;
  const needs = [...required].map((key) => `${typePhraseOf(properties[key])} ${JSON.stringify(key)}`);
  const exampleJson = root && place.example !== undefined ? JSON.stringify(place.example) : undefined;
  const exampleText = exampleJson && exampleJson.length <= 120 ? exampleJson : undefined;
  const error = (issue: { input?: unknown }) =>
    issue.input === undefined && !root
      ? wrongType(place, "object", undefined)
      : `${what} must be a JSON object${needs.length ? ` with ${needs.join(" and ")}` : ""}; got ${describeValue(issue.input)}.` +
        (root
          ? ` Send one as a JSON object${exampleText ? `, e.g. ${exampleText}` : ""}.`
          : ` Send ${typePhrase("object")}.`);
  const extra = node.additionalProperties;
  const zod =
    extra === false
      ? z.strictObject(shape, {
          error: (issue) =>
            issue.code === "unrecognized_keys"
              ? `${(issue as { keys: string[] }).keys.map((key) => JSON.stringify(key)).join(", ")} ${place.key ? `not allowed in ${place.key}` : "not allowed"}; remove them.`
              : error(issue),
        })
      : isObject(extra)
        ? z
            .looseObject(shape, { error })
            .catchall(compileNode(extra as JsonSchema, { key: "a property", optional: true }, mode).zod)
        : z.looseObject(shape, { error });
  const convert: Converter | null =
    converters.length === 0
      ? null
      : (value) => {
          if (!isObject(value)) return value;
          for (const [key, convertChild] of converters) {
            if (Object.hasOwn(value, key) && value[key] !== undefined) value[key] = convertChild(value[key]);
          }
          return value;
        };
  return { zod, convert };
}

function arrayNode(node: Schema, place: Place, mode: Target): CompiledSchema {
  const example = Array.isArray(place.example) ? place.example[0] : undefined;
  const items =
    node.items === undefined
      ? { zod: z.unknown(), convert: null }
      : compileNode(
          node.items as JsonSchema,
          { key: `an item of ${place.key}`, optional: false, example },
          mode,
        );
  let zod = z.array(items.zod, { error: (issue) => wrongType(place, "array", issue.input) });
  if (typeof node.minItems === "number")
    zod = zod.min(node.minItems, { error: () => bound(place, `at least ${node.minItems} items`) });
  if (typeof node.maxItems === "number")
    zod = zod.max(node.maxItems, { error: () => bound(place, `at most ${node.maxItems} items`) });
  const convertItem = items.convert;
  return {
    zod,
    convert: convertItem
      ? (value) => {
          if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = convertItem(value[i]);
          return value;
        }
      : null,
  };
}

function stringNode(node: Schema, place: Place): z.ZodType {
  let zod = z.string({ error: (issue) => wrongType(place, "string", issue.input) });
  if (typeof node.minLength === "number") {
    zod = zod.min(node.minLength, { error: () => bound(place, `at least ${node.minLength} characters`) });
  }
  if (typeof node.maxLength === "number") {
    zod = zod.max(node.maxLength, { error: () => bound(place, `at most ${node.maxLength} characters`) });
  }
  if (typeof node.pattern === "string") {
    const pattern = node.pattern;
    zod = zod.regex(new RegExp(pattern, "u"), {
      error: () => `${place.key} must match the pattern ${pattern}. Send a value that matches it.`,
    });
  }
  return zod;
}

function enumNode(node: Schema, place: Place): CompiledSchema {
  const values = "const" in node ? [node.const] : (node.enum as unknown[]);
  const allowed = new Set(values.map((value) => JSON.stringify(value)));
  return {
    zod: z.unknown().check((context) => {
      const input = context.value;
      const key = typeof input === "bigint" ? String(input) : JSON.stringify(input);
      if (input === undefined || !allowed.has(key)) {
        context.issues.push({ code: "custom", message: notAllowed(place, values, input), input });
      }
    }),
    convert: null,
  };
}

function numberNode(node: Schema, place: Place): CompiledSchema {
  const min = typeof node.minimum === "number" ? node.minimum : undefined;
  const max = typeof node.maximum === "number" ? node.maximum : undefined;
  const whole = integerBounds(node);
  const rangeText = `[${min ?? "-∞"}, ${max ?? "∞"}]`;
  return {
    zod: z.unknown().check((context) => {
      const input = context.value;
      if (typeof input !== "number" && typeof input !== "bigint" && !isNumberLiteral(input)) {
        context.issues.push({ code: "custom", message: wrongType(place, "number", input), input });
        return;
      }
      if (min === undefined && max === undefined) return;
      // An exact integer is compared exactly; any other number as the double it is closest to.
      const exact = typeof input === "bigint" ? input : isNumberLiteral(input) ? input.exact : undefined;
      const below =
        min !== undefined && (exact !== undefined ? exact < (whole.min as bigint) : numeric(input) < min);
      const above =
        max !== undefined && (exact !== undefined ? exact > (whole.max as bigint) : numeric(input) > max);
      if (below || above) {
        const shown = isNumberLiteral(input) ? shorten(input.literal) : shorten(String(input));
        context.issues.push({
          code: "custom",
          message: outOfRange(place.key, shown, rangeText, "number"),
          input,
        });
      }
    }),
    convert: null,
  };
}

/** The integers `minimum` and `maximum` allow, exactly (a fractional bound rounds inward). */
function integerBounds(node: Schema): { min: bigint | undefined; max: bigint | undefined } {
  return {
    min: typeof node.minimum === "number" ? BigInt(Math.ceil(node.minimum)) : undefined,
    max: typeof node.maximum === "number" ? BigInt(Math.floor(node.maximum)) : undefined,
  };
}

/**
 * The int64 conversion of a choice (`anyOf`, a list of types): that of the first option whose checks accept the
 * value, as zod's union picks the first option that parses.
 */
function firstMatchConvert<T>(
  choices: readonly T[],
  place: Place,
  mode: Target,
  root: boolean,
  schemaOf: (choice: T) => JsonSchema,
): Converter | null {
  const checking = { ...mode, transform: false };
  const options = choices.map((choice) => compileNode(schemaOf(choice), place, checking, root));
  if (options.every((option) => option.convert === null)) return null;
  return (value) => {
    for (const option of options) {
      if (option.zod.safeParse(value).success) return option.convert ? option.convert(value) : value;
    }
    return value;
  };
}

/** The double of a number that is not an exact integer (a NumberLiteral's `value`). */
function numeric(input: number | bigint | NumberLiteral): number {
  return typeof input === "number" ? input : typeof input === "bigint" ? Number(input) : input.value;
}

function integerNode(node: Schema, place: Place, target: Target): CompiledSchema {
  const mode = target.mode;
  const format = node.format === "int64" || node.format === "int32" ? node.format : undefined;
  const range = format === "int32" ? INT32 : integerBounds(node);
  const rangeText =
    format === "int32"
      ? `the int32 range [${INT32.min}, ${INT32.max}]`
      : `[${range.min ?? "-∞"}, ${range.max ?? "∞"}]`;
  const label = format === "int32" ? "an integer (int32)" : "an integer";
  const problem = (input: unknown): string | undefined => {
    const key = place.key;
    let exact: bigint;
    if (isNumberLiteral(input)) {
      const shown = shorten(input.literal);
      if (input.kind === "not-integer") return notInteger(key, shown);
      if (input.kind === "beyond-int64" || input.exact === undefined) return beyondInt64(key, shown);
      if (mode === "safe") return beyondSafe(key, shown);
      exact = input.exact;
    } else if (typeof input === "number") {
      if (Number.isNaN(input)) return notInteger(key, "NaN");
      const shown = shorten(String(input));
      if (Number.isFinite(input) && !Number.isInteger(input))
        return `${key} must be ${label}; got ${shown}. Send a whole number.`;
      if (!(input >= -(2 ** 63) && input < 2 ** 63)) return beyondInt64(key, shown);
      if (!Number.isSafeInteger(input)) {
        return mode === "safe"
          ? beyondSafe(key, shown)
          : `${key} ${shown} is a JavaScript number beyond 2^53-1, so it may already be rounded. Pass it as a bigint.`;
      }
      if (range.min === undefined && range.max === undefined) return undefined; // no bound to compare with
      exact = BigInt(input);
    } else if (typeof input === "bigint") {
      if (input < INT64_MIN || input > INT64_MAX) return beyondInt64(key, shorten(String(input)));
      const safe = input >= -BigInt(Number.MAX_SAFE_INTEGER) && input <= BigInt(Number.MAX_SAFE_INTEGER);
      if (mode === "safe") {
        return safe
          ? `${key} is a bigint, but the safe mode takes a number. Parse with { mode: "lossless" } for bigint values.`
          : beyondSafe(key, shorten(String(input)));
      }
      exact = input;
    } else {
      return format === "int32" && input !== undefined
        ? `${key} must be ${label}; got ${describeValue(input)}.${typeof input === "string" ? " Send it as a JSON number without quotes." : ""}`
        : wrongType(place, "integer", input);
    }
    if ((range.min !== undefined && exact < range.min) || (range.max !== undefined && exact > range.max)) {
      return outOfRange(key, String(exact), rangeText);
    }
    return undefined;
  };
  const checked = z.unknown().check((context) => {
    const message = problem(context.value);
    if (message !== undefined) context.issues.push({ code: "custom", message, input: context.value });
  });
  if (mode === "lossless" && format === "int64") {
    const toBigInt = (value: unknown) => (typeof value === "number" ? BigInt(value) : value);
    return { zod: target.transform ? checked.transform(toBigInt) : checked, convert: toBigInt };
  }
  return { zod: checked, convert: null };
}

/** Merges `allOf` parts that are plain object schemas into one object (properties, required), as they mean. */
function flattenAllOf(node: Schema): Schema {
  if (!Array.isArray(node.allOf)) return node;
  const parts = [withoutKeys(node, ["allOf"]), ...(node.allOf as JsonSchema[])];
  const mergeable = parts.every(
    (part) =>
      isObject(part) &&
      !("additionalProperties" in part) &&
      Object.keys(part).every(
        (keyword) =>
          ANNOTATIONS.has(keyword) ||
          keyword === "properties" ||
          keyword === "required" ||
          (keyword === "type" && part.type === "object"),
      ),
  );
  if (!mergeable) return node;
  const merged: Schema = { type: "object", properties: {}, required: [] };
  const properties = merged.properties as Record<string, JsonSchema>;
  const required = merged.required as string[];
  for (const part of parts as Schema[]) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties") {
        for (const [name, schema] of Object.entries(value as Record<string, JsonSchema>)) {
          properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema;
        }
      } else if (key === "required") {
        for (const name of value as string[]) if (!required.includes(name)) required.push(name);
      } else if (key !== "type" && !(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

function typePhraseOf(schema: JsonSchema | undefined): string {
  if (!isObject(schema)) return "a";
  const flat = flattenAllOf(schema as Schema);
  return typeof flat.type === "string" ? typePhrase(flat.type) : "a";
}

function firstExample(node: Schema): unknown {
  if ("example" in node) return node.example;
  if (Array.isArray(node.examples)) return node.examples[0];
  return undefined;
}

function chain(converters: (Converter | null)[]): Converter | null {
  const present = converters.filter((convert): convert is Converter => convert !== null);
  if (present.length === 0) return null;
  if (present.length === 1) return present[0] ?? null;
  return (value) => present.reduce((current, convert) => convert(current), value);
}

function withoutKeys(node: Schema, keys: string[]): Schema {
  const copy = { ...node };
  for (const key of keys) delete copy[key];
  return copy;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
