// @ts-check
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { getPackages } from "@manypkg/get-packages";
import { loadContracts } from "./config.mjs";
import { writeInfoVersion } from "./info-version.mjs";

/**
 * The contract half of the version step, run right after `changeset version`: writes each package's new version
 * into its document's `info.version` (where the contract asks for it) and records every document as its
 * baseline, so the next changes are compared with what this release publishes.
 *
 * @param {string} root repository root
 * @returns {Promise<string[]>} one line per thing done, for the log
 * @example
 * for (const line of await recordRelease(root)) console.log(line);
 */
export async function recordRelease(root) {
  const { packages } = await getPackages(root);
  const done = [];
  for (const contract of loadContracts(root)) {
    const pkg = packages.find((p) => p.packageJson.name === contract.package);
    if (!pkg)
      throw new Error(`${contract.package} is not a package of this workspace (contracts/contracts.json).`);
    if (contract.infoVersion === "package") {
      const was = writeInfoVersion(root, contract.document, pkg.packageJson.version);
      if (was) done.push(`${contract.document}: info.version ${was} → ${pkg.packageJson.version}`);
    }
    mkdirSync(dirname(join(root, contract.baseline)), { recursive: true });
    copyFileSync(join(root, contract.document), join(root, contract.baseline));
    done.push(
      `${contract.baseline}: recorded from ${contract.document} (${contract.package}@${pkg.packageJson.version})`,
    );
  }
  return done;
}
