import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error — plain ESM script without types
import { generate, specDir } from "../scripts/generate.mjs";

describe("generated files", () => {
  it("match openapi.yaml and examples/ (run `pnpm --filter @plant-store/spec gen` when this fails)", async () => {
    const files: Record<string, string> = await generate();
    expect(Object.keys(files).length).toBe(6);
    for (const [rel, expected] of Object.entries(files)) {
      const committed = readFileSync(join(specDir, rel), "utf8");
      expect(committed.startsWith("// generated — do not edit.")).toBe(true);
      expect(committed, `${rel} drifted from its source`).toBe(expected);
    }
  });
});
