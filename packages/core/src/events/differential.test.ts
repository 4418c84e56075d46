import { document } from "@plant-store/spec";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import fc from "fast-check";
import { stringify } from "lossless-json";
import { afterAll, describe, expect, it } from "vitest";
import { toJsonPointer } from "../json/pointer.js";
import { parseNewPlant } from "./parse.js";
import { NewPlant, NewPlantLossless } from "./plant.js";

// The oracle is the spec's own JSON Schema for NewPlant (components.schemas of openapi.yaml) run by ajv
// (draft 2020-12, the dialect of OpenAPI 3.1), with the OpenAPI formats int64/int32 as range checks on numbers.
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addKeyword({ keyword: "components" }); // a container for the schemas, so that "#/components/…" $refs resolve
ajv.addFormat("int64", { type: "number", validate: (n: number) => n >= -(2 ** 63) && n < 2 ** 63 });
ajv.addFormat("int32", { type: "number", validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 });
const SPEC_ID = "https://plant-store.test/openapi.json";
ajv.addSchema({ $id: SPEC_ID, components: { schemas: document.components.schemas } });
const specNewPlant = ajv.getSchema(`${SPEC_ID}#/components/schemas/NewPlant`)!;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A number literal read exactly, as rational arithmetic on its digits (independent of the code under test). */
function exactly(literal: string): { integer: true; value: bigint } | { integer: false } {
  const [, sign, whole, fraction = "", exponent = "0"] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(
    literal,
  )!;
  const mantissa = BigInt(`${sign}${whole}${fraction}`);
  const power = Number(exponent) - fraction.length;
  if (power >= 0) return { integer: true, value: mantissa * 10n ** BigInt(power) };
  const divisor = 10n ** BigInt(-power);
  return mantissa % divisor === 0n ? { integer: true, value: mantissa / divisor } : { integer: false };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const escapeToken = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const pointersOf = (errors: readonly ErrorObject[]) =>
  new Set(
    errors.map((error) =>
      error.keyword === "required"
        ? `${error.instancePath}/${escapeToken((error.params as { missingProperty: string }).missingProperty)}`
        : error.instancePath,
    ),
  );

/**
 * The JSON Schema verdict on a JSON text. ajv sees numbers as doubles, which misrepresent an integer id beyond
 * 2^53 (and a fraction that rounds to an integer); for those ids only, ajv gets a stand-in with the literal's
 * exact verdict (0: an int64; 2^64: an integer beyond int64; 0.5: not an integer), so ajv still judges the
 * rest of the document. `beyondSafe` marks the ids the JSON Schema accepts but a double cannot hold.
 */
function jsonSchemaVerdict(text: string, idLiteral: string | undefined) {
  const parsed = JSON.parse(text) as unknown;
  let instance = parsed;
  let beyondSafe = false;
  if (idLiteral !== undefined && isObject(instance) && typeof instance.id === "number") {
    const exact = exactly(idLiteral);
    const faithful = exact.integer
      ? exact.value >= -MAX_SAFE && exact.value <= MAX_SAFE
      : Number.isFinite(instance.id) && !Number.isInteger(instance.id);
    if (!faithful) {
      const inInt64 = exact.integer && exact.value >= INT64_MIN && exact.value <= INT64_MAX;
      beyondSafe = inInt64;
      instance = { ...instance, id: inInt64 ? 0 : exact.integer ? 2 ** 64 : 0.5 };
    }
  }
  const valid = specNewPlant(instance) as boolean;
  return {
    parsed,
    faithful: instance === parsed,
    valid,
    beyondSafe,
    pointers: pointersOf(specNewPlant.errors ?? []),
  };
}

const counts = { structured: 0, anything: 0, literals: 0, deliberate: 0 };

/** Runs one JSON text through ajv and both modes of parseNewPlant, and asserts they agree. */
function agree(text: string, idLiteral: string | undefined) {
  const verdict = jsonSchemaVerdict(text, idLiteral);
  const lossless = parseNewPlant(text, { mode: "lossless" });
  const safe = parseNewPlant(text, { mode: "safe" });
  expect(lossless.ok, text).toBe(verdict.valid);
  if (!lossless.ok) {
    expect(lossless.kind).toBe("schema");
    expect(new Set(lossless.issues.map((issue) => issue.pointer)), text).toEqual(verdict.pointers);
  }
  if (verdict.beyondSafe) {
    // Deliberate difference: an int64 id beyond ±(2^53-1) is valid JSON Schema, but the safe mode refuses it
    // (a number would round it) with an issue at /id that points to the lossless mode, compared above.
    counts.deliberate++;
    expect(safe.ok).toBe(false);
    if (!safe.ok) {
      expect(new Set(safe.issues.map((issue) => issue.pointer))).toEqual(
        new Set([...verdict.pointers, "/id"]),
      );
      expect(safe.issues.find((issue) => issue.pointer === "/id")?.message).toContain('mode: "lossless"');
    }
  } else {
    expect(safe.ok, text).toBe(verdict.valid);
    if (!safe.ok) expect(new Set(safe.issues.map((issue) => issue.pointer)), text).toEqual(verdict.pointers);
  }
  // The zod schema itself, on the value ajv judged. Where a double misrepresents the id, zod sees only the
  // double: it refuses any unsafe one, and cannot tell a safe integer from a fraction that rounded to it
  // (1.0000000000000001); that is why parseNewPlant reads such ids from their literal.
  const zod = NewPlant.safeParse(verdict.parsed);
  if (verdict.faithful) {
    expect(zod.success, text).toBe(verdict.valid);
    if (!zod.success)
      expect(new Set(zod.error.issues.map((issue) => toJsonPointer(issue.path)))).toEqual(verdict.pointers);
  } else if (!Number.isSafeInteger((verdict.parsed as { id: number }).id)) {
    expect(zod.success, text).toBe(false);
  }
  return verdict;
}

/** The literal a serializer writes for the root id, when it is a number (for the exact verdict). */
function idLiteralOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.id === "bigint") return value.id.toString();
  return typeof value.id === "number" && Number.isFinite(value.id) ? JSON.stringify(value.id) : undefined;
}

const text = fc.oneof(
  fc.string(),
  fc.constant(""),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.constantFrom("Žlutá růže 🌹 薔薇", "バラ", "\u0000", "\ud800", "a/b~c"),
);
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
);
const id = fc.oneof(
  { weight: 3, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.maxSafeInteger() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -0,
      1,
      1.0,
      1e3,
      1.5,
      0.1,
      -1,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 63,
      -(2 ** 63),
      2 ** 64,
      1e21,
    ),
  },
  { weight: 2, arbitrary: fc.double({ noNaN: true }) },
  { weight: 3, arbitrary: fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: INT64_MAX - 5n, max: INT64_MAX + 5n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: INT64_MIN - 5n, max: INT64_MIN + 5n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: MAX_SAFE - 5n, max: MAX_SAFE + 5n }) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: wrongType },
);
const structured = fc
  .tuple(
    fc.record(
      {
        id,
        name: fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: wrongType }),
        tag: fc.oneof(text, wrongType),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "ID", "Name", "a/b~c")),
      fc.jsonValue({ maxDepth: 2 }),
      {
        maxKeys: 4,
      },
    ),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

const literal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.stringMatching(/^(0|[1-9]\d{0,24})$/),
      fc.constantFrom("9007199254740991", "9007199254740993", "9223372036854775807", "9223372036854775808"),
    ),
    fc.option(fc.stringMatching(/^\d{1,20}$/)),
    fc.option(
      fc.tuple(
        fc.constantFrom("e", "E"),
        fc.constantFrom("", "+", "-"),
        fc.oneof(fc.integer({ min: 0, max: 30 }).map(String), fc.constantFrom("324", "400")),
      ),
    ),
  )
  .map(
    ([negative, whole, fraction, exponent]) =>
      `${negative ? "-" : ""}${whole}${fraction === null ? "" : `.${fraction}`}${exponent === null ? "" : exponent.join("")}`,
  );

describe("zod NewPlant and parseNewPlant agree with the spec's JSON Schema (ajv)", () => {
  afterAll(() => {
    const total = counts.structured + counts.anything + counts.literals;
    console.info(`differential: ${total} generated payloads`, counts);
    expect(total).toBeGreaterThanOrEqual(10_000);
  });

  it("on objects biased toward the schema's edges", () => {
    fc.assert(
      fc.property(structured, (value) => {
        counts.structured++;
        const verdict = agree(stringify(value)!, idLiteralOf(value));
        // NewPlantLossless on the generated value itself, whose big ids are exact bigints. Deliberate
        // difference: it refuses a *number* id beyond ±(2^53-1), which may already have been rounded.
        const { id } = value as { id?: unknown };
        if (!(typeof id === "number" && Number.isInteger(id) && !Number.isSafeInteger(id))) {
          expect(NewPlantLossless.safeParse(value).success).toBe(verdict.valid);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("on arbitrary JSON values", () => {
    const anything = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    );
    fc.assert(
      fc.property(anything, (value) => {
        counts.anything++;
        agree(JSON.stringify(value), idLiteralOf(value));
      }),
      { numRuns: 2500 },
    );
  });

  it("on id literals as written: 1.0, 1e3, -0, fractions, huge exponents", () => {
    fc.assert(
      fc.property(literal, fc.oneof(text, wrongType), (id, name) => {
        counts.literals++;
        agree(`{"id": ${id}, "name": ${JSON.stringify(name)}}`, id);
      }),
      { numRuns: 3000 },
    );
  });
});
