import { fileURLToPath } from "node:url";
import { type JsonSchema, catalog as specCatalog, type WebhookEntry } from "@plant-store/spec";
import { loadCatalog } from "@plant-store/spec/load";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import fc from "fast-check";
import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { parseEvent } from "./parse-event.js";

// Every webhook's schema, of the spec and of the test fixture, judged by ajv (draft 2020-12, OpenAPI's int formats
// as range checks) and by parseEvent on inputs generated from the schema itself: the two verdicts and the pointers of
// every problem must agree. ajv sees doubles, so an int64 beyond 2^53 (generated as a bigint, written exactly)
// reaches it as the in-range stand-in 0.
const FIXTURE = fileURLToPath(
  new URL("../../../../test-support/fixtures/multi-webhook.yaml", import.meta.url),
);
const catalog: WebhookEntry[] = [...specCatalog, ...(await loadCatalog(FIXTURE)).slice(1)];

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat("int64", { type: "number", validate: (n: number) => n >= -(2 ** 63) && n < 2 ** 63 });
ajv.addFormat("int32", { type: "number", validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 });

type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** allOf of object parts read as one object (what the parts mean together), for generating inputs. */
function flat(schema: JsonSchema): Schema {
  if (!isObject(schema)) return {};
  if (!Array.isArray(schema.allOf)) return schema;
  const parts = (schema.allOf as JsonSchema[]).map(flat);
  return {
    type: "object",
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => (part.required as string[] | undefined) ?? []),
  };
}

const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constant([]),
);
const safeKey = fc.string().filter((key) => key !== "__proto__");

/**
 * Values shaped by the schema. With `mutate`, often valid and sometimes wrong in one place (a wrong type, a left-out
 * property, a value off the enum, an integer that is not one); without, only the right shapes (bounds may still
 * break), so the valid verdict gets its share.
 */
function arbitrary(schema: JsonSchema, mutate: boolean, depth = 0): fc.Arbitrary<unknown> {
  const node = flat(schema);
  const or = (good: fc.Arbitrary<unknown>, ...bad: fc.Arbitrary<unknown>[]) =>
    mutate
      ? fc.oneof({ weight: 8, arbitrary: good }, ...bad.map((arbitrary) => ({ weight: 1, arbitrary })))
      : good;
  const wrong = depth > 3 ? fc.constant(null) : junk;
  if (Array.isArray(node.enum)) return or(fc.constantFrom(...node.enum), wrong, fc.string());
  switch (node.type) {
    case "object": {
      const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
      const keys = Object.keys(properties);
      const record = fc.record(
        Object.fromEntries(
          keys.map((key) => [key, arbitrary(properties[key] as JsonSchema, mutate, depth + 1)]),
        ),
      );
      const dropped =
        mutate && keys.length > 0 ? fc.option(fc.constantFrom(...keys), { freq: 6 }) : fc.constant(null);
      const extra = fc.dictionary(
        safeKey.filter((key) => !keys.includes(key)),
        fc.jsonValue({ maxDepth: 1 }),
        {
          maxKeys: 2,
        },
      );
      const shaped = fc.tuple(record, dropped, extra).map(([value, drop, more]) => {
        const copy: Schema = { ...more, ...value };
        if (drop !== null) delete copy[drop];
        return copy;
      });
      return or(shaped, wrong);
    }
    case "array":
      return or(
        fc.array(arbitrary((node.items ?? {}) as JsonSchema, mutate, depth + 1), { maxLength: 3 }),
        wrong,
      );
    case "string":
      return or(fc.string(), wrong);
    case "integer": {
      const int64 = node.format === "int64";
      const good = fc.oneof(
        fc.integer(),
        fc.maxSafeInteger(),
        int64
          ? fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
          : fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      );
      return or(
        good,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        int64 ? fc.bigInt({ min: 2n ** 63n, max: 2n ** 65n }) : fc.constantFrom(2 ** 31, -(2 ** 31) - 1),
        wrong,
      );
    }
    case "number":
      return or(fc.double({ noNaN: true, noDefaultInfinity: true }), wrong);
    case "boolean":
      return or(fc.boolean(), wrong);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** What ajv sees: a bigint written exactly as the stand-in 0 when in int64, else 2^64 (beyond int64, refused). */
function standIn(value: unknown): unknown {
  if (typeof value === "bigint") return value >= -(2n ** 63n) && value < 2n ** 63n ? 0 : 2 ** 64;
  if (Array.isArray(value)) return value.map(standIn);
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, standIn(child)]));
  return value;
}

const escapeToken = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const pointersOf = (errors: readonly ErrorObject[]) =>
  new Set(
    errors
      .filter((error) => error.keyword !== "allOf" && error.keyword !== "if")
      .map((error) =>
        error.keyword === "required"
          ? `${error.instancePath}/${escapeToken((error.params as { missingProperty: string }).missingProperty)}`
          : error.instancePath,
      ),
  );

describe.each(catalog.map((entry) => [entry.type, entry] as const))(
  "%s: parseEvent agrees with ajv",
  (_, entry) => {
    const validate = ajv.compile(entry.schema as object);
    it("on inputs generated from its schema", () => {
      let valid = 0;
      let invalid = 0;
      fc.assert(
        fc.property(fc.oneof(arbitrary(entry.schema, true), arbitrary(entry.schema, false)), (value) => {
          const text = stringify(value) as string;
          const judged = JSON.parse(JSON.stringify(standIn(value))) as unknown;
          const ajvValid = validate(judged) as boolean;
          const result = parseEvent(entry, text);
          expect(result.ok, text).toBe(ajvValid);
          if (ajvValid) valid++;
          else {
            invalid++;
            if (!result.ok) {
              expect(result.kind).toBe("schema");
              // ajv may report one problem several times (a type error and the keyword under it); the set of places agrees.
              expect(new Set(result.issues.map((issue) => issue.pointer)), text).toEqual(
                pointersOf(validate.errors ?? []),
              );
            }
          }
        }),
        { numRuns: 1500 },
      );
      // Both verdicts were exercised, not just one.
      expect(valid).toBeGreaterThan(100);
      expect(invalid).toBeGreaterThan(100);
    });
  },
);
