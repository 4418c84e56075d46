import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository the tests run in. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Copies the repository's files as git sees them (tracked, and new files not ignored) into a temporary directory,
 * with no git state. The root's node_modules is linked; each package's node_modules is copied as the links it
 * holds (workspace links are relative, so they point at the copy's packages), and with `builds` its `dist/` too, so
 * the copy runs without installing or building.
 *
 * @example
 * ```ts
 * const copy = copyRepository({ builds: true });
 * // … edit copy.root/spec/openapi.yaml, run the copy's bins …
 * copy.remove();
 * ```
 */
export function copyRepository(options: { builds?: boolean; prefix?: string } = {}): {
  root: string;
  remove: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), options.prefix ?? "plant-store-copy-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(ROOT, file), join(root, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  const packages = [
    "spec",
    "contracts",
    "release",
    ...["packages", "apps"].flatMap((dir) => readdirSync(join(ROOT, dir)).map((name) => `${dir}/${name}`)),
  ];
  for (const pkg of packages) {
    for (const dir of options.builds ? ["node_modules", "dist"] : ["node_modules"]) {
      const from = join(ROOT, pkg, dir);
      if (existsSync(from)) cpSync(from, join(root, pkg, dir), { recursive: true, verbatimSymlinks: true });
    }
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
