import type { JsonSchema } from "@plant-store/spec";

type Schema = { readonly [keyword: string]: unknown };

/** A JSON value whose int64 integers may be bigints: {@link toJsonText} writes them as exact digits. */
export type SampleValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | SampleValue[]
  | { [key: string]: SampleValue };

/** One integer property declared `format: int64`, by its path of property names from the root. */
export type Int64Path = readonly string[];

function asSchema(schema: JsonSchema | unknown): Schema {
  return typeof schema === "object" && schema !== null ? (schema as Schema) : {};
}

/** `allOf` of objects merged into one: the keywords of every part, `properties` and `required` joined. */
function merged(schema: Schema): Schema {
  const parts = Array.isArray(schema.allOf) ? schema.allOf.map((part) => merged(asSchema(part))) : [];
  if (parts.length === 0) return schema;
  const properties: Record<string, unknown> = { ...asSchema(schema.properties) };
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  let out: Schema = { ...schema };
  for (const part of parts) {
    Object.assign(properties, asSchema(part.properties));
    for (const name of Array.isArray(part.required) ? part.required : []) required.add(name);
    out = { ...part, ...out };
  }
  const { allOf: _allOf, ...rest } = out;
  return { ...rest, properties, required: [...required] };
}

/** The first concrete alternative of `anyOf` / `oneOf`, else the schema itself. */
function chosen(schema: Schema): Schema {
  const plain = merged(schema);
  const options = plain.anyOf ?? plain.oneOf;
  if (Array.isArray(options) && options.length > 0) return chosen(asSchema(options[0]));
  return plain;
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== "null") ?? type[0];
  if (typeof type === "string") return type;
  if (schema.properties !== undefined) return "object";
  return undefined;
}

function sampleString(schema: Schema, name: string): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 1;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Math.max(min, 16);
  const base = `conformance ${name}`.slice(0, max);
  return base.length >= min ? base : base.padEnd(min, "x");
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  let value = min ?? (max !== undefined ? Math.min(max, 1) : 1);
  if (integer) value = Math.ceil(value);
  return integer ? value : value + (max === undefined || value + 0.5 <= max ? 0.5 : 0);
}

/**
 * A value valid against `schema` with every declared property present (optional ones too), built from the
 * keywords events use: the spec's example wins where a node has one. Integers declared `format: int64` at the
 * paths in `large` become `2^53 + 1` as a bigint.
 */
export function sampleFromSchema(
  schema: JsonSchema,
  large: readonly Int64Path[] = [],
  path: string[] = [],
): SampleValue {
  const node = chosen(asSchema(schema));
  if ("const" in node) return node.const as SampleValue;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0] as SampleValue;
  const type = typeOf(node);
  if (type === "integer" && node.format === "int64" && large.some((p) => p.join("/") === path.join("/"))) {
    return 2n ** 53n + 1n;
  }
  if (node.example !== undefined && type !== "object") return node.example as SampleValue;
  if (Array.isArray(node.examples) && node.examples.length > 0 && type !== "object")
    return node.examples[0] as SampleValue;
  switch (type) {
    case "object": {
      const out: { [key: string]: SampleValue } = {};
      for (const [name, child] of Object.entries(asSchema(node.properties))) {
        out[name] = sampleFromSchema(child as JsonSchema, large, [...path, name]);
      }
      return out;
    }
    case "array": {
      const count = typeof node.minItems === "number" && node.minItems > 0 ? node.minItems : 1;
      return Array.from({ length: count }, () =>
        sampleFromSchema(asSchema(node.items), large, [...path, "0"]),
      );
    }
    case "string":
      return sampleString(node, path.at(-1) ?? "value");
    case "integer":
      return sampleNumber(node, true);
    case "number":
      return sampleNumber(node, false);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

/** The paths of every integer property declared `format: int64`, through nested objects. */
export function int64Paths(schema: JsonSchema, path: string[] = []): Int64Path[] {
  const node = chosen(asSchema(schema));
  if (typeOf(node) === "integer" && node.format === "int64") return [path];
  if (typeOf(node) !== "object") return [];
  return Object.entries(asSchema(node.properties)).flatMap(([name, child]) =>
    int64Paths(child as JsonSchema, [...path, name]),
  );
}

/** The root object's required property names, in the document's order. */
export function requiredProperties(schema: JsonSchema): string[] {
  const node = chosen(asSchema(schema));
  return Array.isArray(node.required)
    ? node.required.filter((name): name is string => typeof name === "string")
    : [];
}

/** JSON text of a sample: bigints as exact digits, everything else as `JSON.stringify` writes it. */
export function toJsonText(value: SampleValue): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
