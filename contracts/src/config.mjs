// @ts-check
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** Where the list of guarded contracts lives, relative to the repository root. */
export const CONFIG_PATH = "contracts/contracts.json";

const documentPath = z
  .string()
  .regex(/\.(ya?ml|json)$/, "must be a .yaml, .yml or .json file (a path from the repository root)");

const contractSchema = z.strictObject({
  package: z.string().min(1),
  document: documentPath,
  baseline: documentPath,
  infoVersion: z.literal("package").optional(),
});

const configSchema = z.strictObject({
  $comment: z.string().optional(),
  contracts: z.array(contractSchema).min(1),
});

/** @typedef {z.infer<typeof contractSchema>} Contract */

/** A config file that cannot be used; the message says what to fix. */
export class ContractConfigError extends Error {
  code = "contract_config";
}

/**
 * Reads and validates the contract list.
 *
 * @param {string} root repository root
 * @returns {Contract[]}
 * @example
 * for (const c of loadContracts(process.cwd())) console.log(c.package, c.document, c.baseline);
 */
export function loadContracts(root) {
  const file = join(root, CONFIG_PATH);
  let raw;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ContractConfigError(
      `${CONFIG_PATH} cannot be read as JSON: ${/** @type {Error} */ (error).message}`,
    );
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new ContractConfigError(
      `${CONFIG_PATH} is not a valid contract list (${problems.join("; ")}). Each entry is ` +
        `{ "package": "<name>", "document": "<path>", "baseline": "<path>" }.`,
    );
  }
  return parsed.data.contracts;
}
