import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { CACHE, replaceFile } from "../cache.js";
import { command, env } from "./commands.js";
import type { RehearsalContext } from "./context.js";

/**
 * The consumer's own TypeScript (its devDependency), run without npx. Incremental, with its build info kept in
 * the release cache between runs: files whose content is unchanged since a passing run (the public packages'
 * .d.ts, mostly) are not checked again; every changed file and whatever depends on it is.
 *
 * @example
 * ```ts
 * await tsc(ctx, consumer, "tsconfig.json");
 * ```
 */
export async function tsc(ctx: RehearsalContext, dir: string, project: string): Promise<string> {
  const info = `.tsbuildinfo-${project.replace(/\.json$/, "")}`;
  const kept = join(CACHE, "consumer-tsc", info);
  if (existsSync(kept)) cpSync(kept, join(dir, info));
  const compiler = join(dir, "node_modules", "typescript", "bin", "tsc");
  const out = await command(
    ctx,
    process.execPath,
    [compiler, "-p", project, "--incremental", "--tsBuildInfoFile", info],
    { cwd: dir, env: env(ctx), timeout: 300_000, stdout: true },
  );
  // Atomically: a rehearsal running beside this one may be reading it.
  replaceFile(join(dir, info), kept);
  return out;
}
