#!/usr/bin/env node
// Writes package.json's version into src/version.ts (run by the root `pnpm version-packages` after
// `changeset version`, through this package's `gen` script); src/version.test.ts fails when they drift.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../src/version.ts", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const source = readFileSync(file, "utf8");
const next = source
  .replace(/export const VERSION = "[^"]*";/, `export const VERSION = ${JSON.stringify(version)};`)
  .replace(/"plant-store\/[^"]*"/, `"plant-store/${version}"`);
if (next !== source) writeFileSync(file, next);
