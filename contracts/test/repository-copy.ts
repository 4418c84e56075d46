import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository this test runs in. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Copies the repository's files as git sees them (tracked, and new files not ignored) into a temporary directory,
 * with the root's and this package's node_modules linked rather than copied. The copy has no git state.
 *
 * @returns the copy's path and a function that deletes it
 */
export function copyRepository(): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), "contract-gate-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(root, file));
    } catch (error) {
      // A file deleted in the working tree but not yet in the index is not part of the copy.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  for (const dir of ["node_modules", "contracts/node_modules"]) symlinkSync(join(ROOT, dir), join(root, dir));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
