import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

const UI = fileURLToPath(new URL("../dist/ui/", import.meta.url));
const BUDGET = 150 * 1024;

describe("the built console (run after `pnpm --filter @plant-store/console build`)", () => {
  const files = readdirSync(UI, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name));

  it(`is at most ${BUDGET / 1024} KB gzipped in all`, () => {
    const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    expect(gzipped).toBeLessThanOrEqual(BUDGET);
  });

  it("has no inline script, no inline style and nothing from another origin", () => {
    const html = readFileSync(join(UI, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
