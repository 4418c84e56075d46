import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The relative imports of every module in one app's folder of the page. */
function importsOf(folder: string): string[] {
  const dir = fileURLToPath(new URL(`./${folder}/`, import.meta.url));
  return readdirSync(dir)
    .filter((file) => /\.tsx?$/.test(file))
    .flatMap((file) =>
      [...readFileSync(`${dir}${file}`, "utf8").matchAll(/from "(\.[^"]+)"/g)].map(
        (match) => `${file}: ${match[1]}`,
      ),
    );
}

describe("the page's app folders", () => {
  it("share only what lies beside them: neither app's pages import the other's", () => {
    expect(importsOf("sender").filter((line) => line.includes("/receiver/"))).toEqual([]);
    expect(importsOf("receiver").filter((line) => line.includes("/sender/"))).toEqual([]);
    expect(importsOf("sender").length).toBeGreaterThan(10);
    expect(importsOf("receiver").length).toBeGreaterThan(5);
  });
});
