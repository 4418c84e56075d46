import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { checkTokenFormat, createKeyPair, createSecret, createToken, hashToken } from "@plant-store/core";
import { document } from "@plant-store/spec";
import { commandCatalog, commandEvent, type EventOptions } from "../events.js";
import { CliError, paint, printJson } from "../output.js";
import { exampleText } from "../payload.js";

/**
 * `plant-store example`: the spec's example payload.
 *
 * @example
 * ```ts
 * example({}); // prints { "id": 1, "name": "Monstera deliciosa", "tag": "tropical" }
 * ```
 */
export async function example(options: EventOptions & { json?: boolean }): Promise<void> {
  const { entry } = await commandEvent(options);
  const text = exampleText(entry);
  process.stdout.write(`${options.json ? JSON.stringify(JSON.parse(text)) : text}\n`);
}

/**
 * `plant-store events`: the webhooks of the contract (or of `--spec`): event type, name, method and path, and the
 * top-level properties of the payload (required ones marked). `--json`: the catalog entries, schemas included.
 *
 * @example
 * ```ts
 * await events({ json: true });
 * ```
 */
export async function events(options: EventOptions & { json?: boolean }): Promise<void> {
  const catalog = await commandCatalog(options);
  if (options.json) {
    printJson(catalog);
    return;
  }
  for (const entry of catalog) {
    process.stdout.write(`${paint("bold", entry.type)}  ${entry.name}  ${entry.method} ${entry.path}\n`);
    const fields = topLevelFields(entry.schema);
    if (fields) process.stdout.write(`  payload: ${fields}\n`);
    if (entry.description) process.stdout.write(`  ${entry.description.trim().split("\n")[0]}\n`);
  }
}

/** `id* name* tag` for an object schema (required marked with *), following allOf. */
function topLevelFields(schema: unknown): string {
  const properties: string[] = [];
  const required = new Set<string>();
  const visit = (node: unknown) => {
    if (typeof node !== "object" || node === null) return;
    const record = node as { properties?: object; required?: string[]; allOf?: unknown[] };
    for (const key of Object.keys(record.properties ?? {}))
      if (!properties.includes(key)) properties.push(key);
    for (const key of record.required ?? []) required.add(key);
    for (const part of record.allOf ?? []) visit(part);
  };
  visit(schema);
  return properties.map((key) => (required.has(key) ? `${key}*` : key)).join(" ");
}

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

/**
 * `plant-store token create`: a new psk_ token and its hash.
 *
 * @example
 * ```ts
 * await tokenCreate({ json: true }); // {"token":"psk_…","hash":"sha256:…"}
 * ```
 */
export async function tokenCreate(options: { json?: boolean }): Promise<void> {
  const token = createToken();
  const hash = await hashToken(token);
  if (options.json) printJson({ token, hash });
  else process.stdout.write(`${token}\n# receivers may store the hash instead: ${hash}\n`);
}

/**
 * `plant-store token hash <token>`.
 *
 * @example
 * ```ts
 * await tokenHash("psk_…", {});
 * ```
 */
export async function tokenHash(token: string, options: { json?: boolean }): Promise<void> {
  let hash: string;
  try {
    hash = await hashToken(token);
  } catch (error) {
    throw new CliError((error as Error).message, 2); // the argument cannot be a token: a usage error
  }
  if (options.json) printJson({ hash });
  else process.stdout.write(`${hash}\n`);
}

/**
 * `plant-store token check <token>`: exit 1 when the format or checksum is wrong.
 *
 * @example
 * ```ts
 * tokenCheck("psk_typo", {}); // exit code 1, with the reason
 * ```
 */
export function tokenCheck(token: string, options: { json?: boolean }): void {
  const result = checkTokenFormat(token);
  if (options.json) printJson(result.ok ? { valid: true } : { valid: false, reason: result.reason });
  else process.stdout.write(result.ok ? "valid psk_ token\n" : `invalid: ${result.reason}\n`);
  if (!result.ok) process.exitCode = 1;
}

/**
 * `plant-store secret create`.
 *
 * @example
 * ```ts
 * secretCreate({}); // whsec_…
 * ```
 */
export function secretCreate(options: { json?: boolean }): void {
  const secret = createSecret();
  if (options.json) printJson({ secret });
  else process.stdout.write(`${secret}\n`);
}

/**
 * `plant-store keypair create`: an ed25519 key pair for `v1a` signatures.
 *
 * @example
 * ```ts
 * await keypairCreate({}); // private key: whsk_… / public key: whpk_…
 * ```
 */
export async function keypairCreate(options: { json?: boolean }): Promise<void> {
  const { privateKey, publicKey } = await createKeyPair();
  if (options.json) printJson({ privateKey, publicKey });
  else
    process.stdout.write(
      `private key (sender, keep secret): ${privateKey}\npublic key (receivers):         ${publicKey}\n`,
    );
}
