import { examples } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import { parseNewPlant } from "./parse.js";

const byGroup = (group: "valid" | "lossless" | "invalid") =>
  examples.filter((example) => example.group === group);

describe("the spec's example payloads", () => {
  it("has examples in every group", () => {
    expect(byGroup("valid").length).toBeGreaterThan(0);
    expect(byGroup("lossless").length).toBeGreaterThan(0);
    expect(byGroup("invalid").length).toBeGreaterThan(0);
  });

  it.each(byGroup("valid").map((example) => [example.name, example.raw]))(
    "valid/%s: accepted in both modes",
    (_, raw) => {
      const safe = parseNewPlant(raw, { mode: "safe" });
      const lossless = parseNewPlant(new TextEncoder().encode(raw), { mode: "lossless" });
      expect(safe).toEqual({ ok: true, value: JSON.parse(raw) });
      expect(lossless.ok).toBe(true);
      if (safe.ok && lossless.ok) expect(lossless.value.id).toBe(BigInt(safe.value.id));
    },
  );

  it.each(byGroup("lossless").map((example) => [example.name, example.raw]))(
    "lossless/%s: refused at /id in safe mode, exact bigint in lossless mode",
    (_, raw) => {
      const literal = /"id"\s*:\s*(-?\d+)/.exec(raw)![1]!;
      const safe = parseNewPlant(raw, { mode: "safe" });
      expect(safe).toMatchObject({ ok: false, kind: "schema", issues: [{ pointer: "/id" }] });
      if (!safe.ok) {
        expect(safe.issues[0]?.message).toContain(`id ${literal} is beyond 2^53-1`);
        expect(safe.issues[0]?.message).toContain('mode: "lossless"');
      }
      const lossless = parseNewPlant(raw, { mode: "lossless" });
      expect(lossless.ok && lossless.value.id).toBe(BigInt(literal));
    },
  );

  it.each(byGroup("invalid").map((example) => [example.name, example.raw]))(
    "invalid/%s: refused in both modes",
    (_, raw) => {
      const safe = parseNewPlant(raw, { mode: "safe" });
      const lossless = parseNewPlant(raw, { mode: "lossless" });
      expect(safe.ok).toBe(false);
      expect(lossless.ok).toBe(false);
      if (safe.ok || lossless.ok) return;
      let isJson = true;
      try {
        JSON.parse(raw);
      } catch {
        isJson = false;
      }
      expect(safe.kind).toBe(isJson ? "schema" : "json");
      expect(lossless.kind).toBe(safe.kind);
      expect(lossless.issues.map((issue) => issue.pointer)).toEqual(
        safe.issues.map((issue) => issue.pointer),
      );
    },
  );
});
