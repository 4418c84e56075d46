import type { JsonSchema, WebhookEntry, WebhookExample, WebhookResponse } from "./types.js";

const METHODS = ["post", "put", "patch", "delete", "get"] as const;
const JSON_MEDIA = "application/json";

/**
 * Reads the webhook catalog out of an OpenAPI 3.1 document (parsed YAML or JSON): one entry per operation under
 * `webhooks`, with its request body's JSON Schema and every response resolved (document-local `$ref`s inlined),
 * its examples, and its event type (the operation's `operationId`). This is what `gen` commits as
 * `src/generated/catalog.ts`, and what apps run on a document given at start-up (`--spec`).
 *
 * Throws `Error` naming the webhook and what to fix when an entry cannot be an event: no `operationId`, no
 * `application/json` request body, an external or cyclic `$ref`, two operations with one `operationId`.
 *
 * @example
 * ```ts
 * import { parse } from "yaml";
 * const catalog = buildCatalog(parse(readFileSync("openapi.yaml", "utf8")));
 * catalog[0].type; // "newPlant"
 * catalog[0].path; // "/plant/webhook"
 * ```
 */
export function buildCatalog(document: unknown): WebhookEntry[] {
  if (!isObject(document)) throw new Error("The OpenAPI document must be an object.");
  const webhooks = document.webhooks ?? {};
  if (!isObject(webhooks)) throw new Error("`webhooks` must be an object of path → path item.");
  const resolve = (value: unknown, where: string) => resolveRefs(document, value, where, []);
  const entries: WebhookEntry[] = [];
  const seen = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(webhooks)) {
    const item = resolve(rawItem, `webhooks.${path}`);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const where = `webhook ${method.toUpperCase()} ${path}`;
      const type = operation.operationId;
      if (typeof type !== "string" || !/^[A-Za-z][A-Za-z0-9_.-]*$/.test(type)) {
        throw new Error(
          `The ${where} has no usable operationId; the operationId is its event type. Add one such as "plantSold" (letters, digits, _ . -).`,
        );
      }
      const twin = seen.get(type);
      if (twin)
        throw new Error(`The ${where} and the ${twin} share the operationId "${type}"; make them unique.`);
      seen.set(type, where);
      const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
      const media = body && isObject(body.content) ? body.content[JSON_MEDIA] : undefined;
      if (!isObject(media) || !isObject(media.schema)) {
        throw new Error(
          `The ${where} (${type}) has no application/json request body schema; every event is a JSON document.`,
        );
      }
      const summary = typeof operation.summary === "string" ? operation.summary : undefined;
      const description = typeof operation.description === "string" ? operation.description : undefined;
      entries.push({
        type,
        name: summary ?? type,
        path,
        method: method.toUpperCase(),
        operationId: type,
        ...(summary !== undefined ? { summary } : {}),
        ...(description !== undefined ? { description } : {}),
        schema: media.schema as JsonSchema,
        examples: examplesOf(media),
        responses: responsesOf(operation.responses),
      });
    }
  }
  return entries;
}

function examplesOf(media: Record<string, unknown>): WebhookExample[] {
  const examples: WebhookExample[] = [];
  if (isObject(media.examples)) {
    for (const [name, example] of Object.entries(media.examples)) {
      if (!isObject(example) || !("value" in example)) continue;
      const summary = typeof example.summary === "string" ? example.summary : undefined;
      examples.push({ name, ...(summary !== undefined ? { summary } : {}), value: example.value });
    }
  }
  if ("example" in media) examples.push({ name: "example", value: media.example });
  return examples;
}

function responsesOf(responses: unknown): Record<string, WebhookResponse> {
  const out: Record<string, WebhookResponse> = {};
  if (!isObject(responses)) return out;
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response)) continue;
    const media = isObject(response.content) ? response.content[JSON_MEDIA] : undefined;
    out[status] = {
      description: typeof response.description === "string" ? response.description : "",
      ...(isObject(media) && isObject(media.schema) ? { schema: media.schema as JsonSchema } : {}),
    };
  }
  return out;
}

/** Inlines every document-local `$ref` (`#/…`); sibling keywords of a `$ref` are kept (OpenAPI 3.1 allows them). */
function resolveRefs(
  document: Record<string, unknown>,
  value: unknown,
  where: string,
  stack: string[],
): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveRefs(document, item, where, stack));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith("#/")) {
      throw new Error(
        `${where}: the $ref "${ref}" points outside the document; bundle it first (e.g. redocly bundle).`,
      );
    }
    if (stack.includes(ref)) {
      throw new Error(
        `${where}: the $ref "${ref}" refers to itself; recursive event schemas are not supported.`,
      );
    }
    const target = ref
      .slice(2)
      .split("/")
      .map((token) => decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), document);
    if (target === undefined)
      throw new Error(`${where}: the $ref "${ref}" points at nothing in the document.`);
    const { $ref: _, ...siblings } = value;
    const resolved = resolveRefs(document, target, where, [...stack, ref]);
    return Object.keys(siblings).length === 0 || !isObject(resolved)
      ? resolved
      : { ...resolved, ...(resolveRefs(document, siblings, where, stack) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = resolveRefs(document, child, where, stack);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
