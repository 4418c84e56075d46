import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Where Verdaccio, Node binaries and the consumers' type-check state are kept between runs (outside the
 * repository): `PLANT_STORE_RELEASE_CACHE`, else `~/.cache/plant-store-release`. Several runs may share it at once
 * (two CI jobs on one machine): everything in it is written with {@link fillOnce} or {@link replaceFile}.
 */
export const CACHE =
  process.env.PLANT_STORE_RELEASE_CACHE ?? join(homedir(), ".cache", "plant-store-release");

/**
 * Makes `dir` once, atomically: `fill` writes a fresh directory beside it (`<dir>.partial-…`), which is then
 * renamed to `dir`. So `dir` exists only complete; a run that loses a race to make it (the rename finds the
 * winner's in place) drops its own and uses the winner's; a run killed half-way leaves only its `.partial-`
 * directory, which nothing reads.
 *
 * @example
 * ```ts
 * await fillOnce(join(CACHE, "registry", key), (dir) => run("npm", ["ci"], { cwd: dir })); // → the directory
 * ```
 */
export async function fillOnce(dir: string, fill: (staging: string) => Promise<void>): Promise<string> {
  if (existsSync(dir)) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.partial-`);
  try {
    await fill(staging);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // rename(2) onto a directory that is not empty fails (ENOTEMPTY or EEXIST): another run's is in place.
      if (!existsSync(dir)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Copies `from` over `file` of the cache atomically: readers see the old file or the new one, never a part. */
export function replaceFile(from: string, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${randomBytes(6).toString("hex")}`;
  try {
    copyFileSync(from, partial);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}
