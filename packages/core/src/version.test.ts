import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { VERSION } from "./version.js";

it("equals the version in package.json", () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  expect(VERSION).toBe(manifest.version);
});
