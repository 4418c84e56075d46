import { cpSync } from "node:fs";
import { join } from "node:path";
import { SCOPE } from "../registry.js";
import { type Manifest, publishablePackages } from "../workspace.js";
import { cliIn, startHealthy } from "./bins.js";
import { command, env } from "./commands.js";
import { CONSUMER_FIXTURES, consumerProject, npmInstall } from "./consumer.js";
import { checkCli } from "./consumer-checks.js";
import type { RehearsalContext } from "./context.js";
import { packageNames } from "./packages.js";
import { packument } from "./registry-documents.js";
import { temp } from "./resources.js";
import { step } from "./steps.js";

/**
 * A fresh project that installs only `name` by range, from `latest` (the copy may hold a prerelease by now): its
 * dependency tree alone must install, import, and start its bins.
 *
 * @example
 * ```ts
 * await installAlone(ctx, "@plant-store/cli");
 * ```
 */
export async function installAlone(ctx: RehearsalContext, name: string): Promise<void> {
  const dir = join(temp(ctx, "alone"), "app");
  const manifest = publishablePackages(ctx.copy).find((p) => p.manifest.name === name)?.manifest as Manifest;
  const latest = (await packument(ctx, name))["dist-tags"].latest as string;
  await step(
    ctx,
    `${name} alone: npm install ${name}@^${latest} in an empty project, then npm ls`,
    `declare every package ${name} needs in its dependencies (workspace:^ for ours)`,
    async () => {
      consumerProject(ctx, dir, { [name]: `^${latest}` }, false);
      await npmInstall(ctx, dir);
      await command(ctx, "npm", ["ls", "--all"], { cwd: dir, env: env(ctx), timeout: 60_000 });
    },
    name,
  );
  await step(
    ctx,
    `${name} alone: imports every public entry${manifest.bin ? ", bins start" : ""}`,
    `the file or dependency named in the error is missing from ${name}'s published package`,
    async () => {
      cpSync(join(CONSUMER_FIXTURES, "smoke.mjs"), join(dir, "smoke.mjs"));
      await command(ctx, process.execPath, ["smoke.mjs", JSON.stringify([name])], {
        cwd: dir,
        env: env(ctx),
      });
      if (name === `${SCOPE}/cli`) await checkCli(ctx, dir, `${name} alone`, latest);
      if (name === `${SCOPE}/receiver` || name === `${SCOPE}/sender`)
        await startAppAlone(ctx, dir, name, manifest);
    },
    name,
  );
}

/** The app's bin starts with a token the copy's CLI made, and answers /healthz. */
async function startAppAlone(ctx: RehearsalContext, dir: string, name: string, manifest: Manifest) {
  const bin = Object.keys(manifest.bin ?? {})[0] as string;
  const token = JSON.parse(await cliIn(ctx, dir, false, ["token", "create", "--json"])) as { token: string };
  const args = name.endsWith("receiver") ? ["--token", token.token] : ["--admin-token", token.token];
  const app = await startHealthy(ctx, dir, bin, [...args, "--db", ":memory:"], `${bin} /healthz`);
  await app.stop();
}

/** Each package alone, from `latest`: the CLI and the receiver first (the bins users install most). */
export async function installEachAlone(ctx: RehearsalContext): Promise<void> {
  for (const name of new Set([`${SCOPE}/cli`, `${SCOPE}/receiver`, ...packageNames(ctx)])) {
    await installAlone(ctx, name);
  }
}
