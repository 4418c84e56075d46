// @ts-check
import {
  addNonBreaking,
  allBreaking,
  apiDiff,
  openApiSchemaRules,
  openapi3Rules,
  reverseClassifyRule,
} from "api-smart-diff";
import { inlineRefs } from "./documents.mjs";

/** How much a change asks of the package's next version. @typedef {"breaking" | "minor" | "patch"} ChangeLevel */

/**
 * One classified difference between the baseline and the document.
 * @typedef {object} ContractChange
 * @property {ChangeLevel} level
 * @property {string} where a JSON pointer into the document
 * @property {string} what what changed, in words
 * @property {string} tool api-smart-diff's own classification, kept for the report
 */

/** @typedef {import("api-smart-diff").DiffType} DiffType */
/** @typedef {import("api-smart-diff").ClassifyRule} ClassifyRule */
/** @typedef {import("api-smart-diff").ComapreContext} CompareContext */

/** @type {Record<DiffType, number>} */
const severity = { annotation: 0, deprecated: 1, "non-breaking": 1, unclassified: 2, breaking: 3 };

/**
 * @param {import("api-smart-diff").RuleDiffType} entry
 * @param {CompareContext} ctx
 * @returns {DiffType}
 */
const evaluate = (entry, ctx) => (typeof entry === "function" ? entry(ctx) : entry);

/**
 * A rule that is breaking when the change breaks either side: the one that writes the message and the one that
 * reads it. api-smart-diff classifies a request body for its writer and a response for its reader; a webhook's
 * payload is written by every sender and read (and validated, by our receiver) by every subscriber.
 *
 * @param {ClassifyRule} rule
 * @returns {ClassifyRule}
 */
function bothSides(rule) {
  const reversed = reverseClassifyRule(rule);
  /** @param {0 | 1 | 2} i */
  const entry = (i) => (/** @type {CompareContext} */ ctx) => {
    const a = evaluate(rule[i], ctx);
    const b = evaluate(reversed[i], ctx);
    return severity[a] >= severity[b] ? a : b;
  };
  return [entry(0), entry(1), entry(2)];
}

/** @param {any} node */
const withBothSides = (node) => (Array.isArray(node.$) ? { ...node, $: bothSides(node.$) } : node);

/**
 * Applies `change` to every node of a rules tree, including the nodes that rules compute lazily (functions), and
 * remembers each node it made: api-smart-diff's own `transformComapreRules` rebuilds a lazy subtree at every call,
 * repeating that work for every node compared.
 *
 * @param {any} node
 * @param {(node: any) => any} change
 * @param {WeakMap<object, any>} made
 * @returns {any}
 */
function mapRules(node, change, made = new WeakMap()) {
  if (typeof node !== "object" || node === null) return node;
  const known = made.get(node);
  if (known) return known;
  /** @type {Record<string, any>} */
  const out = {};
  made.set(node, out);
  for (const [key, value] of Object.entries(change(node))) {
    if (!key.startsWith("/")) out[key] = value;
    else if (typeof value === "function")
      out[key] = (/** @type {any[]} */ ...args) => mapRules(value(...args), change, made);
    else if (typeof value === "object" && value !== null) out[key] = mapRules(value, change, made);
    else out[key] = value;
  }
  return out;
}

/**
 * api-smart-diff's OpenAPI 3 rules, plus what they lack: `webhooks` (classified like `paths`, every message
 * schema for both sides) and `components.schemas` (published as generated TypeScript types, which break for
 * readers and writers alike).
 *
 * @returns {import("api-smart-diff").CompareRules}
 */
export function contractRules() {
  const rules = /** @type {Record<string, any>} */ (openapi3Rules());
  const messageSchema = { ...mapRules(openApiSchemaRules(), withBothSides), $: allBreaking };
  const bothSidesSchema = () => messageSchema;
  // Removing the whole section removes every operation in it.
  rules["/paths"] = { ...rules["/paths"], $: addNonBreaking };
  rules["/webhooks"] = mapRules(rules["/paths"], (node) =>
    "/schema" in node ? { ...node, "/schema": bothSidesSchema } : node,
  );
  rules["/components"] = {
    ...rules["/components"],
    "/schemas": { ...rules["/components"]["/schemas"], "/*": bothSidesSchema },
  };
  return rules;
}

const rules = contractRules();

/**
 * Maps api-smart-diff's verdict onto what the change asks of the next version.
 * - breaking → breaking.
 * - non-breaking (an added operation, webhook, optional property, response…) and deprecated → minor.
 * - annotation (descriptions, summaries, examples, tags) → patch.
 * - unclassified (what the tool has no rule for, such as `x-` extensions) → minor: the report lists it for review.
 * A replaced `type` is breaking wherever it is: api-smart-diff reverses its rule for responses and calls a
 * response's `string` → `integer` non-breaking.
 *
 * @param {import("api-smart-diff").Diff} diff
 * @returns {ChangeLevel}
 */
function levelOf(diff) {
  if (diff.action === "replace" && diff.path.at(-1) === "type" && diff.path.includes("schema"))
    return "breaking";
  switch (diff.type) {
    case "breaking":
      return "breaking";
    case "annotation":
      return "patch";
    default:
      return "minor";
  }
}

/** @param {(string | number)[]} path */
const pointer = (path) =>
  `/${path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

/**
 * @param {import("api-smart-diff").Diff} diff
 * @param {number} from where the part of the path worth naming starts
 */
function plainDescription(diff, from) {
  const verb = { add: "Added", remove: "Removed", replace: "Replaced", rename: "Renamed" }[diff.action];
  const tail = diff.path.slice(from);
  if (typeof tail.at(-1) === "number") tail.pop(); // an item of `required` or `enum`: its value says more
  const show = (/** @type {unknown} */ v) => (typeof v === "object" ? "" : ` ${JSON.stringify(v)}`);
  const values =
    diff.action === "replace" ? `${show(diff.before)} →${show(diff.after)}` : show(diff.after ?? diff.before);
  return `[${verb}] ${tail.join("/")}${values}`;
}

/**
 * Names the operation (or component) first, then what changed in it.
 * @param {import("api-smart-diff").Diff} diff
 */
function describe(diff) {
  const [section, name, method] = diff.path;
  if ((section === "paths" || section === "webhooks") && diff.path.length >= 3) {
    const kind = section === "webhooks" ? "webhook" : "route";
    const text = diff.description || plainDescription(diff, 3);
    if (diff.path.length === 3) return text.replace("operation", kind);
    return `${kind} ${String(method).toUpperCase()} ${name}: ${text}`;
  }
  if (section === "components" && diff.path.length >= 3)
    return `${name} ${method}: ${plainDescription(diff, 3)}`;
  return diff.description || plainDescription(diff, 0);
}

/**
 * Compares two OpenAPI 3.x documents (local `$ref`s inlined first) and classifies every change.
 *
 * @param {Record<string, any>} before the baseline
 * @param {Record<string, any>} after the document as it is now
 * @param {[string, string]} [names] the two documents' names, for error messages
 * @returns {Promise<ContractChange[]>}
 * @example
 * const changes = await classifyChanges(baseline, current);
 * const breaking = changes.filter((c) => c.level === "breaking");
 */
export async function classifyChanges(before, after, names = ["the baseline", "the document"]) {
  const diffs = apiDiff(await inlineRefs(before, names[0]), await inlineRefs(after, names[1]), { rules });
  return diffs.map((diff) => ({
    level: levelOf(diff),
    where: pointer(diff.path),
    what: describe(diff),
    tool: diff.type,
  }));
}

/** @type {Record<ChangeLevel, number>} */
const levelRank = { patch: 0, minor: 1, breaking: 2 };

/**
 * The most demanding level among changes, or undefined when there are none.
 *
 * @param {ContractChange[]} changes
 * @returns {ChangeLevel | undefined}
 * @example
 * highestLevel([{ level: "minor", … }, { level: "patch", … }]); // "minor"
 */
export function highestLevel(changes) {
  /** @type {ChangeLevel | undefined} */
  let highest;
  for (const c of changes) if (!highest || levelRank[c.level] > levelRank[highest]) highest = c.level;
  return highest;
}
