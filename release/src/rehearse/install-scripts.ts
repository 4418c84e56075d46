import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Manifest, ROOT } from "../workspace.js";
import { command, nativeBuildEnv } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { readJson } from "./json.js";

interface ToBuild {
  name: string;
  version: string;
  dir: string;
}

/**
 * The packages of a node_modules tree that npm builds at install time: those with an install, preinstall or
 * postinstall script, or a binding.gyp (npm runs `node-gyp rebuild` for those).
 */
function packagesToBuild(modules: string): ToBuild[] {
  const found: ToBuild[] = [];
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@")
      ? readdirSync(join(modules, entry.name)).map((name) => join(modules, entry.name, name))
      : [join(modules, entry.name)];
    for (const dir of dirs) {
      if (!existsSync(join(dir, "package.json"))) continue;
      const manifest = readJson<Manifest & { scripts?: Record<string, string> }>(join(dir, "package.json"));
      const scripts = manifest.scripts ?? {};
      if (
        scripts.install ||
        scripts.preinstall ||
        scripts.postinstall ||
        existsSync(join(dir, "binding.gyp"))
      ) {
        found.push({ name: manifest.name, version: manifest.version, dir });
      }
      found.push(...packagesToBuild(join(dir, "node_modules")));
    }
  }
  return found;
}

/**
 * What `npm install` would have built after `--ignore-scripts`: better-sqlite3 gets the binary the workspace's
 * install compiled for the same version and this Node (what its prebuild-install would download where GitHub is
 * reachable; here it would compile); every other package with install scripts or a binding.gyp is rebuilt by
 * `npm rebuild`, scripts and all.
 *
 * @example
 * ```ts
 * await runInstallScripts(ctx, consumer);
 * ```
 */
export async function runInstallScripts(ctx: RehearsalContext, dir: string): Promise<void> {
  const rebuild: string[] = [];
  for (const pkg of packagesToBuild(join(dir, "node_modules"))) {
    if (pkg.name === "better-sqlite3" && reuseSqliteBuild(ctx, pkg)) continue;
    rebuild.push(pkg.name);
  }
  if (rebuild.length > 0) {
    ctx.log(`  npm rebuild ${rebuild.join(" ")}`);
    await command(ctx, "npm", ["rebuild", ...rebuild], {
      cwd: dir,
      env: nativeBuildEnv(ctx),
      timeout: 900_000,
    });
  }
}

/** Copies the workspace's better-sqlite3 binary into `pkg` when it is the same version; whether it did. */
function reuseSqliteBuild(ctx: RehearsalContext, pkg: ToBuild): boolean {
  const workspace = createRequire(join(ROOT, "packages", "store", "package.json"));
  const ours = dirname(workspace.resolve("better-sqlite3/package.json"));
  const binary = join("build", "Release", "better_sqlite3.node");
  if (
    readJson<Manifest>(join(ours, "package.json")).version !== pkg.version ||
    !existsSync(join(ours, binary))
  ) {
    return false;
  }
  mkdirSync(join(pkg.dir, "build", "Release"), { recursive: true });
  cpSync(join(ours, binary), join(pkg.dir, binary));
  ctx.log(
    `  better-sqlite3@${pkg.version}: the workspace's native build of the same version for Node ${process.versions.node} (ABI ${process.versions.modules}), not compiled again`,
  );
  return true;
}
