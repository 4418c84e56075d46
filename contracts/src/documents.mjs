// @ts-check
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dereference } from "@apidevtools/json-schema-ref-parser";
import { parse } from "yaml";

/** A document that cannot be read or parsed; the message names the file. */
export class ContractDocumentError extends Error {
  code = "contract_document";
}

/**
 * Reads an OpenAPI document (YAML or JSON: the YAML parser reads both).
 *
 * @param {string} root repository root
 * @param {string} path path from the root
 * @returns {Record<string, any> | undefined} the document, or undefined when the file does not exist
 * @example
 * const doc = readDocument(root, "spec/openapi.yaml");
 */
export function readDocument(root, path) {
  const file = join(root, path);
  if (!existsSync(file)) return undefined;
  let data;
  try {
    data = parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ContractDocumentError(
      `${path} is not valid YAML or JSON: ${/** @type {Error} */ (error).message}`,
    );
  }
  if (typeof data !== "object" || data === null || typeof data.openapi !== "string") {
    throw new ContractDocumentError(`${path} is not an OpenAPI document (no "openapi" version field).`);
  }
  return data;
}

/**
 * Inlines every local `$ref`, so each use of a shared schema is compared in its own place (a request body, a
 * response, a webhook payload) with that place's rules. Circular references stay `$ref`s.
 *
 * @param {Record<string, any>} document
 * @param {string} name the document's name, for the error a `$ref` that points nowhere gets
 * @returns {Promise<Record<string, any>>} a new, tree-shaped document
 * @example
 * const flat = await inlineRefs(readDocument(root, "spec/openapi.yaml"), "spec/openapi.yaml");
 */
export async function inlineRefs(document, name) {
  let inlined;
  try {
    inlined = await dereference(structuredClone(document), {
      dereference: { circular: "ignore" },
      resolve: { external: false },
    });
  } catch (error) {
    const { message, parentPath } = /** @type {Error & { parentPath?: string }} */ (error);
    throw new ContractDocumentError(
      `${name}: ${message.replace(/\.$/, "")}${parentPath ? ` (at ${parentPath})` : ""}. Fix the $ref; the gate compares documents whose local references all resolve.`,
    );
  }
  // The dereferencer shares one object between every place that referenced it; the diff must see a tree.
  return JSON.parse(JSON.stringify(inlined));
}
