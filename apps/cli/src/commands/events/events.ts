import { commandCatalog, type EventOptions } from "../../events.js";
import { paint, printJson } from "../../output.js";

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
