import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlantStoreError } from "../errors.js";
import { parseJsonLossless } from "../json/parse-lossless.js";
import { parseNewPlant } from "./parse.js";

const utf8 = (text: string) => new TextEncoder().encode(text);

function issuesOf(result: ReturnType<typeof parseNewPlant>) {
  if (result.ok) throw new Error(`expected a failure, got ${String(result.value)}`);
  return result.issues;
}

describe("parseNewPlant, safe mode (default)", () => {
  it("returns the parsed object with every property, in order, from text or bytes", () => {
    const raw = '{"color": "green", "id": 3, "name": "Calathea", "tag": "shade", "pot": {"size": 12}}';
    for (const input of [raw, utf8(raw)]) {
      const result = parseNewPlant(input, { mode: "safe" });
      expect(result).toEqual({ ok: true, value: JSON.parse(raw) });
      if (result.ok) expect(Object.keys(result.value)).toEqual(["color", "id", "name", "tag", "pot"]);
    }
  });

  it("keeps an own __proto__ property without touching the prototype", () => {
    const result = parseNewPlant('{"id": 1, "name": "x", "__proto__": {"polluted": true}}', { mode: "safe" });
    if (!result.ok) throw new Error(result.message);
    expect(Object.hasOwn(result.value, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect((result.value as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ["1.0", 1],
    ["1e3", 1000],
    ["1E+3", 1000],
    ["100e-2", 1],
    ["-0", -0],
    ["9007199254740991", 9007199254740991],
    ["-9007199254740991", -9007199254740991],
  ])("accepts the JSON Schema integer %s", (literal, id) => {
    const result = parseNewPlant(`{"id": ${literal}, "name": ""}`, { mode: "safe" });
    expect(result.ok && Object.is(result.value.id, id)).toBe(true);
  });

  it.each([
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "9.007199254740993e15",
  ])("refuses the int64 id %s at /id, saying it would be rounded and naming the lossless mode", (literal) => {
    const result = parseNewPlant(`{"id": ${literal}, "name": "x"}`, { mode: "safe" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("schema");
    expect(result.issues).toHaveLength(1);
    const [issue] = result.issues;
    expect(issue?.pointer).toBe("/id");
    expect(issue?.message).toContain(`id ${literal} is beyond 2^53-1`);
    expect(issue?.message).toContain("round");
    expect(issue?.message).toContain('mode: "lossless"');
    expect(result.message).toContain("At /id:");
  });

  it.each([
    ["9223372036854775808", "outside the int64 range"],
    ["-9223372036854775809", "outside the int64 range"],
    ["1e19", "outside the int64 range"],
    ["1e400", "outside the int64 range"],
    ["-1e400", "outside the int64 range"],
    ["1.5", "must be an integer"],
    ["9007199254740993.5", "must be an integer"],
    ["1.0000000000000001", "must be an integer"],
    ["0.99999999999999999", "must be an integer"],
    ["1e-400", "must be an integer"],
    ["0.0000000000000000000000000000001", "must be an integer"],
  ])("classifies the id %s exactly (%s) in both modes", (literal, reason) => {
    for (const mode of ["safe", "lossless"] as const) {
      const issues = issuesOf(parseNewPlant(`{"id": ${literal}, "name": "x"}`, { mode }));
      expect(issues).toEqual([{ pointer: "/id", message: expect.stringContaining(reason) }]);
      expect(issues[0]?.message).toContain(literal);
      expect(issues[0]?.message).not.toContain("lossless");
    }
  });

  it("does not mistake a long number elsewhere for the id", () => {
    const result = parseNewPlant(
      '{"id": 5, "name": "+1 555 0100 0000 0000 1", "n": {"id": 1.0000000000000001}}',
      { mode: "safe" },
    );
    expect(result.ok && result.value.id).toBe(5);
  });

  it("reads the id that JSON.parse keeps: the last duplicate, unescaped keys", () => {
    expect(parseNewPlant('{"id": 9007199254740993, "id": 1, "name": "x"}', { mode: "safe" }).ok).toBe(true);
    expect(
      issuesOf(parseNewPlant('{"id": 1, "\\u0069d": 9007199254740993, "name": "x"}', { mode: "safe" }))[0]
        ?.pointer,
    ).toBe("/id");
  });

  it("reports every schema problem with its pointer, and lists them all in the message", () => {
    const result = parseNewPlant('{"id": "1", "tag": null}', { mode: "safe" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("schema");
    expect(result.issues.map((issue) => issue.pointer)).toEqual(["/name", "/tag", "/id"]);
    expect(result.issues[2]?.message).toMatch(/id must be an integer; got a string \("1"\).*without quotes/);
    expect(result.issues[0]?.message).toMatch(/name is missing/);
    expect(result.issues[1]?.message).toMatch(/tag must be a string when present; got null/);
    expect(result.message).toMatch(
      /^The body does not match the New Plant schema\. At \/name: .* At \/tag: .* At \/id: /,
    );
  });

  it.each([
    ['[{"id": 1, "name": "x"}]', "got an array"],
    ["null", "got null"],
    ['"plant"', 'got a string ("plant")'],
    ["42", "got the number 42"],
  ])("refuses a root that is not an object (%s) at the root pointer", (raw, got) => {
    const issues = issuesOf(parseNewPlant(raw, { mode: "safe" }));
    expect(issues).toEqual([{ pointer: "", message: expect.stringContaining(got) }]);
    expect(issues[0]?.message).toContain("JSON object");
  });

  it("refuses text that is not JSON as kind json, with the parser's reason", () => {
    const result = parseNewPlant('{"id":1,"name":"Broken",', { mode: "safe" });
    expect(result).toMatchObject({ ok: false, kind: "json", issues: [{ pointer: "" }] });
    if (result.ok) return;
    expect(result.message).toMatch(
      /^The body is not valid JSON: .+\. Send one New Plant event as a JSON object/,
    );
    expect(result.issues[0]?.message).toBe(result.message);
  });

  it("says so when the body is empty", () => {
    for (const raw of ["", "  \n", new Uint8Array()]) {
      expect(parseNewPlant(raw, { mode: "safe" })).toMatchObject({
        ok: false,
        kind: "json",
        message: expect.stringMatching(/^The body is empty/),
      });
    }
  });

  it("refuses bytes that are not UTF-8 as kind json, naming the offset", () => {
    const bytes = utf8('{"id": 1, "name": "xx"}');
    bytes[19] = 0xff;
    const result = parseNewPlant(bytes, { mode: "safe" });
    expect(result).toMatchObject({ ok: false, kind: "json" });
    if (result.ok) return;
    expect(result.message).toBe(
      "The body is not valid UTF-8: the byte sequence at offset 19 (0xFF) is ill-formed. Send the JSON encoded as UTF-8.",
    );
  });

  it("ignores a leading byte order mark, in bytes and in text", () => {
    expect(
      parseNewPlant(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"id":1,"name":"x"}')]), { mode: "safe" }).ok,
    ).toBe(true);
    expect(parseNewPlant('\uFEFF{"id":1,"name":"x"}', { mode: "safe" }).ok).toBe(true);
  });

  it("keeps strings exactly, lone surrogates included", () => {
    const result = parseNewPlant('{"id": 7, "name": "Žlutá růže 🌹 \\ud800", "tag": ""}', { mode: "safe" });
    expect(result.ok && result.value.name).toBe("Žlutá růže 🌹 \ud800");
  });

  it("refuses an unknown mode as a programming error", () => {
    expect(() => parseNewPlant("{}", { mode: "Lossless" as "lossless" })).toThrow(PlantStoreError);
  });
});

describe("parseNewPlant, lossless mode", () => {
  it.each([
    ["9007199254740993", 9007199254740993n],
    ["9223372036854775807", 9223372036854775807n],
    ["-9223372036854775808", -9223372036854775808n],
    ["9.223372036854775807e18", 9223372036854775807n],
    ["1", 1n],
    ["1.0", 1n],
    ["1e3", 1000n],
    ["-0", 0n],
  ])("reads the id %s as the bigint %s", (literal, id) => {
    const result = parseNewPlant(`{"id": ${literal}, "name": "x"}`, { mode: "lossless" });
    expect(result).toEqual({ ok: true, value: { id, name: "x" } });
  });

  it("keeps big integers among the extra properties exact too", () => {
    const result = parseNewPlant('{"id": 1, "name": "x", "stock": [9007199254740993, 1.5]}', {
      mode: "lossless",
    });
    expect(result).toEqual({ ok: true, value: { id: 1n, name: "x", stock: [9007199254740993n, 1.5] } });
  });

  it("accepts what JSON.parse accepts even when nesting outruns lossless-json, with the id still exact", () => {
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const result = parseNewPlant(`{"deep": ${deep}, "id": 9223372036854775807, "name": "x"}`, {
      mode: "lossless",
    });
    expect(result.ok && result.value.id).toBe(9223372036854775807n);
    expect(parseNewPlant(`{"deep": ${deep}, "id": 1, "name": "x"}`, { mode: "safe" }).ok).toBe(true);
  });

  it("gives what lossless-json gives, whether or not the text needed it (property)", () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    // Literals of every kind: safe and big integers, fractions, exponents (1e+21), 16-digit runs.
    const literal = fc.oneof(
      int64.map(String),
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
      fc.string({ unit: fc.constantFrom("a", "1", "e", "E") }).map((t) => JSON.stringify(t)),
      fc.constantFrom("1e18", "9.2e18", "-5E17", "1e16", "2.5e1"), // exponent-written integers
    );
    fc.assert(
      fc.property(int64, fc.array(literal, { maxLength: 6 }), (id, extra) => {
        const text = `{"id":${id},"name":"x","extra":[${extra.join(",")}]}`;
        const reference = parseJsonLossless(text) as { id: number | bigint };
        reference.id = BigInt(reference.id);
        expect(parseNewPlant(text, { mode: "lossless" })).toEqual({ ok: true, value: reference });
      }),
      { numRuns: 500 },
    );
  });

  it("gives the same JSON error message as the safe mode", () => {
    for (const raw of ['{"id":1,', "[1,]", "01", '{"a" 1}', "tru"]) {
      expect(parseNewPlant(raw, { mode: "lossless" })).toEqual(parseNewPlant(raw, { mode: "safe" }));
    }
  });
});
