import { rmSync } from "node:fs";
import { join } from "node:path";
import { copyWorkspace, type Manifest, publishablePackages, ROOT } from "../workspace.js";
import { command, env, git } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { readJson, writeJson } from "./json.js";
import { step } from "./steps.js";

/**
 * Makes the copy of the repository that the rehearsal versions and publishes, and readies it for a release: the
 * working tree is never touched.
 *
 * @example
 * ```ts
 * await prepareCopy(ctx); // ctx.copy is the copy's directory
 * ```
 */
export async function prepareCopy(ctx: RehearsalContext): Promise<void> {
  ctx.copy = await copyRepository(ctx);
  await readyCopy(ctx);
}

function copyRepository(ctx: RehearsalContext): Promise<string> {
  return step(
    ctx,
    "copy the repository to a temporary directory (tracked and new files; the working tree is not touched)",
    "run the rehearsal from a git checkout of this repository",
    async () => {
      // Quick: the copy uses this checkout's install, as it uses its build; the full rehearsal installs it.
      const copy = await copyWorkspace(ctx.root, join(ctx.base, "copy"), ctx.quick ? { install: ROOT } : {});
      ctx.temporary.push(copy);
      ctx.cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
      ctx.log(`  ${copy}`);
      return copy;
    },
  );
}

function readyCopy(ctx: RehearsalContext): Promise<void> {
  return step(
    ctx,
    `prepare the copy: provenance off${ctx.quick ? "" : ", git commit, pnpm install"}`,
    "run `pnpm install` in the repository first (the copy installs from pnpm's store, offline where it can)",
    async () => {
      provenanceOff(ctx);
      if (ctx.quick) return;
      // The full rehearsal commits each release, as the release workflow's version pull request does.
      await command(ctx, "git", ["init", "-q", "-b", "main"], { cwd: ctx.copy });
      await git(ctx, ["add", "-A"]);
      await git(ctx, ["commit", "-qm", "rehearsal copy"]);
      const pnpm = join(ROOT, "node_modules", ".bin", "pnpm");
      await command(ctx, pnpm, ["install", "--frozen-lockfile", "--prefer-offline", "--ignore-scripts"], {
        cwd: ctx.copy,
        env: env(ctx, { CI: "true" }),
      });
    },
  );
}

function provenanceOff(ctx: RehearsalContext) {
  for (const { dir } of publishablePackages(ctx.copy)) {
    const file = join(dir, "package.json");
    const raw = readJson<Manifest>(file);
    if (raw.publishConfig?.provenance) {
      // npm applies publishConfig over env and .npmrc, so a manifest setting is the only switch.
      raw.publishConfig.provenance = false;
      writeJson(file, raw);
    }
  }
  ctx.log(
    "  provenance switched OFF in the copy's publishConfig: there is no CI identity (OIDC) here to sign it; release.yml publishes with provenance",
  );
}
