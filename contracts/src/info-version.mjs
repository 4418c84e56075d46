// @ts-check
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isScalar, parseDocument } from "yaml";
import { ContractDocumentError } from "./documents.mjs";

/**
 * Writes `version` into a document's `info.version`, touching only that value's characters, so the YAML or JSON
 * around it (comments, folded text, key order) stays as written.
 *
 * @param {string} root repository root
 * @param {string} path the document, from the root
 * @param {string} version
 * @returns {string | undefined} the version it replaced, or undefined when it already was `version`
 * @example
 * writeInfoVersion(root, "spec/openapi.yaml", "1.1.0"); // "1.0.0"
 */
export function writeInfoVersion(root, path, version) {
  const file = join(root, path);
  const text = readFileSync(file, "utf8");
  const node = parseDocument(text).getIn(["info", "version"], true);
  if (!isScalar(node) || typeof node.value !== "string" || !node.range) {
    throw new ContractDocumentError(`${path} has no info.version string to write ${version} into.`);
  }
  if (node.value === version) return undefined;
  const [start, end] = node.range;
  const written =
    node.type === "QUOTE_DOUBLE"
      ? JSON.stringify(version)
      : node.type === "QUOTE_SINGLE"
        ? `'${version}'`
        : version;
  writeFileSync(file, text.slice(0, start) + written + text.slice(end));
  return node.value;
}
