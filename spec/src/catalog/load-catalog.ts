/**
 * Reads a webhook catalog from an OpenAPI document file (YAML or JSON) at run time, so an app serves, sends or
 * lists the webhooks of a document it was not built with (`--spec <file>` of the apps and the CLI).
 *
 * @module
 * @example
 * ```ts
 * import { loadCatalog } from "@plant-store/spec/load";
 * const catalog = await loadCatalog("./openapi.yaml");
 * ```
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { buildCatalog } from "./build-catalog.js";
import type { Catalog } from "./types.js";

/**
 * Loads and reads a document's catalog. Rejects with an `Error` naming the file and what is wrong: unreadable,
 * not YAML/JSON, or a webhook that cannot be an event (see `buildCatalog`).
 *
 * @example
 * ```ts
 * const catalog = await loadCatalog("spec/openapi.yaml");
 * catalog.map((entry) => entry.type); // ["newPlant"]
 * ```
 */
export async function loadCatalog(file: string): Promise<Catalog> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new Error(`Cannot read the OpenAPI document ${file} (${code}); check the path given to --spec.`, {
      cause,
    });
  }
  let document: unknown;
  try {
    // YAML 1.2 is a superset of JSON: one parser reads both. Integers keep what a double holds; the catalog
    // holds schemas and examples, and examples beyond 2^53 belong in spec/examples/ as exact JSON.
    document = parse(text);
  } catch (cause) {
    throw new Error(`${file} is not a YAML or JSON document: ${(cause as Error).message}`, { cause });
  }
  try {
    const catalog = buildCatalog(document);
    if (catalog.length === 0) throw new Error("it declares no webhooks; add one under `webhooks`.");
    return catalog;
  } catch (cause) {
    throw new Error(`${file}: ${(cause as Error).message}`, { cause });
  }
}
