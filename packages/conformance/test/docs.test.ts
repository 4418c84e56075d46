// The docs pages (docs/conformance/<id>.md) are written from the checks' own texts: this test fails when they
// drift; `PLANT_STORE_WRITE_DOCS=1 pnpm --filter @plant-store/conformance test docs` rewrites them.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type CheckInfo, receiverChecks, senderChecks } from "../src/index.js";

const DIR = fileURLToPath(new URL("../../../docs/conformance/", import.meta.url));
const suites: [
  string,
  readonly (CheckInfo & { note?: string; group?: string; needs?: readonly string[] })[],
][] = [
  ["receiver", receiverChecks],
  ["sender", Object.values(senderChecks)],
];

function page(suite: string, check: (typeof suites)[number][1][number]): string {
  const lines = [
    `# \`${check.id}\`: ${check.title}`,
    "",
    `**Suite:** ${suite} · **Level:** ${check.level} · **Source:** [${check.source.document}, ${check.source.section}](${check.source.url})`,
  ];
  if (check.group) lines.push("", `Opt-in: runs with \`--include ${check.group}\`.`);
  if (check.needs?.length) lines.push("", `Runs when the run has: ${check.needs.join(", ")}.`);
  lines.push("", "## Why", "", check.why, "", "## How to fix", "", check.fix);
  if (check.note) lines.push("", "## What the check cannot see", "", check.note);
  lines.push("", `Run it alone: \`plant-store conformance ${suite} … --only ${check.id}\`.`, "");
  return lines.join("\n");
}

function index(): string {
  const lines = [
    "# Conformance checks",
    "",
    "Each check of `plant-store conformance` (package `@plant-store/conformance`), by suite.",
    "",
  ];
  for (const [suite, checks] of suites) {
    lines.push(`## ${suite}`, "", "| id | level | check |", "| --- | --- | --- |");
    for (const check of checks)
      lines.push(`| [\`${check.id}\`](${check.id}.md) | ${check.level} | ${check.title} |`);
    lines.push("");
  }
  return lines.join("\n");
}

describe("the conformance docs", () => {
  const expected = new Map<string, string>([["README.md", index()]]);
  for (const [suite, checks] of suites)
    for (const check of checks) expected.set(`${check.id}.md`, page(suite, check));

  if (process.env.PLANT_STORE_WRITE_DOCS) {
    mkdirSync(DIR, { recursive: true });
    for (const [name, text] of expected) writeFileSync(`${DIR}${name}`, text);
  }

  it("has a page per check id, as the checks describe themselves", () => {
    for (const [name, text] of expected) {
      expect(existsSync(`${DIR}${name}`), `docs/conformance/${name} is missing`).toBe(true);
      expect(readFileSync(`${DIR}${name}`, "utf8"), `docs/conformance/${name} is stale`).toBe(text);
    }
    expect(readdirSync(DIR).sort()).toEqual([...expected.keys()].sort());
  });

  it("gives every check a unique id", () => {
    const ids = suites.flatMap(([, checks]) => checks.map((check) => check.id));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
