import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import type { Manifest } from "../workspace.js";

/** Package names of a built file's bare imports (static, dynamic, re-exports); comments are not code. */
function importedPackages(source: string): Set<string> {
  const found = new Set<string>();
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"'./#][^"']*)["']/gm;
  for (const match of code.matchAll(pattern)) {
    const specifier = match[1] as string;
    if (specifier.startsWith("node:")) continue; // `#…` (package imports) are excluded by the pattern
    const parts = specifier.split("/");
    found.add(specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
  }
  return found;
}

function jsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(".js"))
    .map((d) => join(d.parentPath, d.name));
}

/**
 * Every bare import of a package's built JavaScript that its manifest does not declare (dependencies, peer or
 * optional dependencies): what fails for a user who installs the package from a registry.
 *
 * @example
 * ```ts
 * undeclaredImports("/repo/apps/receiver", manifest); // [{ file: "dist/log.js", imported: "pino" }]
 * ```
 */
export function undeclaredImports(dir: string, manifest: Manifest): { file: string; imported: string }[] {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(
      (manifest as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {},
    ),
  ]);
  const builtins = new Set(builtinModules);
  const missing: { file: string; imported: string }[] = [];
  for (const file of jsFiles(join(dir, "dist"))) {
    for (const imported of importedPackages(readFileSync(file, "utf8"))) {
      if (!declared.has(imported) && !builtins.has(imported)) {
        missing.push({ file: relative(dir, file), imported });
      }
    }
  }
  return missing;
}
