import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headersJson, keptHeaderSet, pickHeaders } from "../src/shared/headers.js";

/** The rule as first written, one field at a time: what the record path of pickHeaders must keep doing. */
function reference(record: Record<string, string | string[] | undefined>, keep: ReadonlySet<string>) {
  const out = new Map<string, string>();
  for (const name of Object.keys(record)) {
    const value = record[name];
    const key = keep.has(name) ? name : name.toLowerCase();
    if (value === undefined || !keep.has(key)) continue;
    const text = typeof value === "string" ? value : value.join(", ");
    const before = out.get(key);
    out.set(key, before === undefined ? text : `${before}, ${text}`);
  }
  return [...out];
}

const names = fc.constantFrom(
  "webhook-id",
  "Webhook-Id",
  "WEBHOOK-ID",
  "content-type",
  "Content-Type",
  "user-agent",
  "webhook-event-type",
  "webhook-timestamp",
  "webhook-signature",
  "authorization",
  "x-request-id",
  "X-Request-Id",
  // Names an object already has through its prototype: fields, never inherited values.
  "constructor",
  "Constructor",
  "toString",
  "__proto__",
);
const values = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  fc.constant(undefined),
);

describe("pickHeaders", () => {
  it("keeps, lower-cases and joins exactly as field by field, in the same order, for any record", () => {
    for (const keep of [
      keptHeaderSet([]),
      keptHeaderSet(["X-Request-Id"]),
      keptHeaderSet(["x-request-id", "constructor", "toString", "__proto__"]),
    ]) {
      fc.assert(
        fc.property(fc.dictionary(names, values), (record) => {
          const picked = pickHeaders(record, keep);
          expect(Object.entries(picked)).toEqual(reference(record, keep));
          expect(headersJson(picked)).toBe(JSON.stringify(picked));
        }),
        { numRuns: 3000 },
      );
    }
  });

  it("keeps a field named like an object's own properties as a field", () => {
    const keep = keptHeaderSet(["constructor", "__proto__"]);
    const picked = pickHeaders({ Constructor: "a", constructor: "b", __proto__: "c" } as never, keep);
    expect(Object.entries(picked)).toEqual([["constructor", "a, b"]]);
    const own = pickHeaders(JSON.parse('{"__proto__": "x", "Constructor": "y"}'), keep);
    expect(Object.entries(own)).toEqual([
      ["__proto__", "x"],
      ["constructor", "y"],
    ]);
    expect(headersJson(own)).toBe('{"__proto__":"x","constructor":"y"}');
  });
});
