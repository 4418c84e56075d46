#!/usr/bin/env node
// Regenerates the committed files under src/generated/ from openapi.yaml and examples/.
//   node scripts/generate.mjs          write them
//   node scripts/generate.mjs --check  exit 1 when a committed file differs (drift)
// The drift test in test/drift.test.ts calls generate() and compares too.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { parse } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
export const specDir = join(here, "..");
const HEADER =
  "// generated — do not edit. Source: spec/openapi.yaml. Regenerate: pnpm --filter @plant-store/spec gen\n";

/** @returns {Promise<Record<string, string>>} file path (relative to spec/) → contents */
export async function generate() {
  const yamlText = readFileSync(join(specDir, "openapi.yaml"), "utf8");
  const ast = await openapiTS(yamlText, { alphabetize: false });
  const types = `${HEADER}/* biome-ignore-all lint: generated */\n\n${astToString(ast)}`;
  // The same types with every `format: int64` as `bigint`: payloads as core's default (lossless) mode hands them over.
  const int64Ast = await openapiTS(yamlText, {
    alphabetize: false,
    transform: (schema) =>
      schema.type === "integer" && schema.format === "int64"
        ? ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword)
        : undefined,
  });
  const int64Types = `${HEADER}/* biome-ignore-all lint: generated */\n// int64 as bigint\n\n${astToString(int64Ast)}`;

  const doc = parse(yamlText);
  const catalog = await catalogSource(doc);
  const document =
    `${HEADER}\n/** The OpenAPI Plant Store document (spec/openapi.yaml) as data. */\n` +
    `export const document = ${JSON.stringify(doc, null, 2)} as const;\n`;

  const groups = ["valid", "lossless", "invalid"];
  const entries = [];
  for (const group of groups) {
    for (const file of readdirSync(join(specDir, "examples", group)).sort()) {
      if (!file.endsWith(".json")) continue;
      const raw = readFileSync(join(specDir, "examples", group, file), "utf8").replace(/\n$/, "");
      entries.push({ name: file.replace(/\.json$/, ""), group, raw });
    }
  }
  const examples =
    `${HEADER.replace("spec/openapi.yaml", "spec/examples/")}\n` +
    `import type { ExamplePayload } from "../examples-types.js";\n\n` +
    `/** Example New Plant payloads, exactly as they travel on the wire (see spec/examples/README.md). */\n` +
    `export const examples: readonly ExamplePayload[] = ${JSON.stringify(entries, null, 2)};\n`;

  const operational = await operationalSource();
  return {
    "src/generated/operational.ts": operational,
    "src/generated/openapi.ts": types,
    "src/generated/openapi-int64.ts": int64Types,
    "src/generated/catalog.ts": catalog,
    "src/generated/document.ts": document,
    "src/generated/examples.ts": examples,
  };
}

/**
 * The catalog module: the webhooks as data (buildCatalog, the same function apps run on a `--spec` document) and
 * their types, keyed by event type.
 */
async function catalogSource(doc) {
  const { buildCatalog } = await importTypeScript(join(specDir, "src/catalog/build-catalog.ts"));
  const entries = buildCatalog(doc);
  const payload = (module, entry) =>
    `BodyOf<NonNullable<${module}[${JSON.stringify(entry.path)}][${JSON.stringify(entry.method.toLowerCase())}]>>`;
  const map = (module) =>
    entries.map((entry) => `  ${JSON.stringify(entry.type)}: ${payload(module, entry)};`).join("\n");
  return (
    `${HEADER}\nimport type { BodyOf, Catalog } from "../catalog/types.js";\n` +
    `import type { webhooks as Int64Webhooks } from "./openapi-int64.js";\n` +
    `import type { webhooks } from "./openapi.js";\n\n` +
    `/** Every webhook of spec/openapi.yaml: type, path, method, JSON Schema (refs resolved), examples, responses. */\n` +
    `export const catalog = ${JSON.stringify(entries, null, 2)} as const satisfies Catalog;\n\n` +
    `/** The event types of the catalog (each webhook's operationId). */\n` +
    `export type EventType = (typeof catalog)[number]["type"];\n\n` +
    `/** Each event type's payload, int64 as \`bigint\` (core's default, lossless mode). */\n` +
    `export interface EventPayloads {\n${map("Int64Webhooks")}\n}\n\n` +
    `/** Each event type's payload, int64 as \`number\` (core's \`mode: "safe"\`). */\n` +
    `export interface SafeEventPayloads {\n${map("webhooks")}\n}\n`
  );
}

/**
 * The sender's operational webhooks (spec/operational.yaml): their catalog, built by the same `buildCatalog`, the
 * document as data, and their payload types from openapi-typescript, so they are served as New Plant is.
 */
async function operationalSource() {
  const yamlText = readFileSync(join(specDir, "operational.yaml"), "utf8");
  const doc = parse(yamlText);
  const { buildCatalog } = await importTypeScript(join(specDir, "src/catalog/build-catalog.ts"));
  const ast = await openapiTS(yamlText, { alphabetize: false });
  const types = astToString(ast).replace(/^export /gm, "");
  return (
    `${HEADER.replace("spec/openapi.yaml", "spec/operational.yaml")}/* biome-ignore-all lint: generated */

` +
    `import type { Catalog } from "../catalog/types.js";

` +
    `${types}
` +
    `/** The sender's operational webhooks (spec/operational.yaml) as a catalog: what the operator can subscribe to. */
` +
    `export const operationalCatalog = ${JSON.stringify(buildCatalog(doc), null, 2)} as const satisfies Catalog;

` +
    `/** spec/operational.yaml as data. */
` +
    `export const operationalDocument = ${JSON.stringify(doc, null, 2)} as const;

` +
    `/** An operational event type. */
` +
    `export type OperationalEventType = (typeof operationalCatalog)[number]["type"];

` +
    `/** Each operational event's payload. */
` +
    `export interface OperationalPayloads {
` +
    `  "subscription.disabled": components["schemas"]["SubscriptionDisabled"];
` +
    `  "delivery.exhausted": components["schemas"]["DeliveryExhausted"];
` +
    `  "application.deleted": components["schemas"]["ApplicationDeleted"];
}
`
  );
}

/** Loads one dependency-free TypeScript module (type imports only) by transpiling it in memory. */
async function importTypeScript(path) {
  const { outputText } = ts.transpileModule(readFileSync(path, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await generate();
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [rel, contents] of Object.entries(files)) {
    const path = join(specDir, rel);
    if (check) {
      let current = "";
      try {
        current = readFileSync(path, "utf8");
      } catch {}
      if (current !== contents) {
        console.error(`${rel} is out of date with openapi.yaml; run: pnpm --filter @plant-store/spec gen`);
        stale++;
      }
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, contents);
      console.log(`wrote ${rel}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
