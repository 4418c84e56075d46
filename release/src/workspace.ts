import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A package.json as far as the release tests read it. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  keywords?: string[];
  license?: string;
  repository?: { type: string; url: string; directory?: string };
  type?: string;
  sideEffects?: boolean;
  engines?: { node?: string };
  exports?: Record<string, unknown>;
  files?: string[];
  bin?: Record<string, string>;
  publishConfig?: { access?: string; provenance?: boolean };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A publishable workspace package. */
export interface WorkspacePackage {
  dir: string;
  manifest: Manifest;
}

/**
 * Every publishable (non-private) package of the workspace, in dependency order (spec first, apps last).
 *
 * @example
 * ```ts
 * publishablePackages().map((p) => p.manifest.name); // ["@plant-store/spec", "@plant-store/core", …]
 * ```
 */
export function publishablePackages(root = ROOT): WorkspacePackage[] {
  const dirs = ["spec", ...children(join(root, "packages")), ...children(join(root, "apps"))];
  const found: WorkspacePackage[] = [];
  for (const dir of dirs) {
    const file = join(root, dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    if (!manifest.private) found.push({ dir: join(root, dir), manifest });
  }
  return sortByDependencies(found);
}

function children(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const base = dir.split("/").pop() as string;
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${base}/${d.name}`)
    .sort();
}

function sortByDependencies(packages: WorkspacePackage[]): WorkspacePackage[] {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const sorted: WorkspacePackage[] = [];
  const visit = (p: WorkspacePackage, seen: Set<string>) => {
    if (sorted.includes(p) || seen.has(p.manifest.name)) return;
    seen.add(p.manifest.name);
    for (const dep of Object.keys(p.manifest.dependencies ?? {})) {
      const inner = byName.get(dep);
      if (inner) visit(inner, seen);
    }
    sorted.push(p);
  };
  for (const p of packages) visit(p, new Set());
  return sorted;
}

/**
 * The pinned pnpm (`packageManager`): the checkout's installed copy when it is that version (no npx start-up),
 * otherwise through npx (as the README's commands do).
 */
export function pnpmCommand(root = ROOT): [string, string[]] {
  const spec = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { packageManager: string })
    .packageManager;
  const installed = join(root, "node_modules", "pnpm", "package.json");
  if (existsSync(installed)) {
    const { version, bin } = JSON.parse(readFileSync(installed, "utf8")) as {
      version: string;
      bin: Record<string, string>;
    };
    if (spec === `pnpm@${version}` && bin.pnpm) {
      return [process.execPath, [join(root, "node_modules", "pnpm", bin.pnpm)]];
    }
  }
  return ["npx", ["-y", spec]];
}

/**
 * Packs every publishable package with pnpm (which rewrites `workspace:` ranges as they will be published), in one
 * `pnpm -r pack` into `destination`; returns package name → tarball path.
 *
 * @example
 * ```ts
 * const tarballs = await packAll("/tmp/packs"); // { "@plant-store/core": "/tmp/packs/plant-store-core-0.1.0.tgz", … }
 * ```
 */
export async function packAll(destination: string, root = ROOT): Promise<Record<string, string>> {
  mkdirSync(destination, { recursive: true });
  const [cmd, prefix] = pnpmCommand(root);
  const packages = publishablePackages(root);
  const filters = packages.flatMap(({ manifest }) => ["--filter", manifest.name]);
  const { stdout } = await run(
    cmd,
    [...prefix, "-r", ...filters, "pack", "--pack-destination", destination],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const tarballs: Record<string, string> = {};
  for (const { manifest } of packages) {
    const tarball = join(
      destination,
      `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`,
    );
    if (!existsSync(tarball)) {
      throw new Error(`pnpm pack wrote no tarball for ${manifest.name} (expected ${tarball}):\n${stdout}`);
    }
    tarballs[manifest.name] = tarball;
  }
  return tarballs;
}

/**
 * A throwaway copy of the repository's files (tracked and new, not ignored) in `copy` (default: a new temporary
 * directory): no dist, and no node_modules unless `install` names a checkout whose install the copy may use: then
 * its root node_modules is linked and each package's node_modules copied as the links it holds (pnpm's links are
 * relative, so workspace packages resolve to the copy's own). The caller removes the copy.
 *
 * @example
 * ```ts
 * const copy = await copyWorkspace(); // "/tmp/plant-store-copy-…"
 * ```
 */
export async function copyWorkspace(
  root = ROOT,
  copy = mkdtempSync(join(tmpdir(), "plant-store-copy-")),
  { install }: { install?: string } = {},
): Promise<string> {
  mkdirSync(copy, { recursive: true });
  if (install) {
    symlinkSync(join(install, "node_modules"), join(copy, "node_modules"));
    for (const dir of [
      "spec",
      "contracts",
      "release",
      ...children(join(install, "packages")),
      ...children(join(install, "apps")),
    ]) {
      const modules = join(install, dir, "node_modules");
      if (existsSync(modules))
        cpSync(modules, join(copy, dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
    }
  }
  const { stdout } = await run("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split("\0").filter(Boolean)) {
    try {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(root, file), join(copy, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // deleted but not yet staged
    }
  }
  return copy;
}
