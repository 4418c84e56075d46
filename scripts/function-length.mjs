// Lists every function in the workspace's non-test TypeScript sources longer than the limit (CONTRIBUTING, "Rules
// once": at most 80 lines from its first line to its last, nested functions included) and exits 1 when there is one.
//   node scripts/function-length.mjs [limit]
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const MAX_FUNCTION_LINES = 80;
const root = fileURLToPath(new URL("..", import.meta.url));
const limit = Number(process.argv[2] ?? MAX_FUNCTION_LINES);
const SKIP_DIRS = new Set([
  "node_modules",
  "dist",
  "generated",
  "test",
  "bench",
  ".turbo",
  ".git",
  "coverage",
]);

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* sources(join(dir, entry.name));
    } else if (/\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name)) {
      yield join(dir, entry.name);
    }
  }
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return "(anonymous)";
}

const long = [];
const packages = ["spec", "packages", "apps", "release", "contracts"];
for (const top of packages) {
  let files;
  try {
    files = [...sources(join(root, top))];
  } catch {
    continue;
  }
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (isFunction(node)) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > limit) long.push(`${relative(root, file)}:${start + 1} ${nameOf(node)} ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}
for (const line of long) console.log(line);
console.log(`${long.length} function(s) over ${limit} lines`);
process.exitCode = long.length > 0 ? 1 : 0;
