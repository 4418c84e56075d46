import { readFileSync, writeFileSync } from "node:fs";

/** A JSON file's value, typed as the caller reads it. */
export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** Writes `value` as a package manager does: two-space indented, with a final newline. */
export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
