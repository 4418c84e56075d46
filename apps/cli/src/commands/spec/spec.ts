import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { document } from "@plant-store/spec";
import { printJson } from "../../output.js";

/**
 * `plant-store spec`: the OpenAPI document, as shipped (YAML) or as JSON.
 *
 * @example
 * ```ts
 * spec({ json: true });
 * ```
 */
export function spec(options: { json?: boolean }): void {
  if (options.json) {
    printJson(document);
    return;
  }
  const file = createRequire(import.meta.url).resolve("@plant-store/spec/openapi.yaml");
  process.stdout.write(readFileSync(file, "utf8"));
}
