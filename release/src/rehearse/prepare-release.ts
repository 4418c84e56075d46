import { cpSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { packAll, publishablePackages } from "../workspace.js";
import { pendingChangesets } from "./changesets.js";
import { changesetCli, command, env, git } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { contractGate } from "./contract-gate.js";
import { undeclaredImports } from "./imports.js";
import { freshVersions } from "./packages.js";
import { RehearsalError } from "./rehearsal-error.js";
import { temp } from "./resources.js";
import { step } from "./steps.js";

/** What a release is, for its log lines and its first step. */
export interface ReleasePlan {
  n: number;
  what: string;
  /** Writes the release's changesets (and the contract edit they describe). */
  prepare: () => Promise<void> | void;
  /** Whether the contract gate must name dependents of a breaking release. */
  dependentsExpected?: boolean;
}

/**
 * A release up to its publish, which needs no registry: changesets; in the full rehearsal the contract gate (as
 * `npm test` does before a merge) and the release workflow's version step, `pnpm version-packages`, in the quick
 * one `changeset version`; build, the import check, and in the quick rehearsal the packing (its tarballs are
 * returned).
 *
 * @example
 * ```ts
 * const tarballs = await prepareRelease(ctx, { n: 1, what: "the pending changesets", prepare: () => {} });
 * ```
 */
export async function prepareRelease(
  ctx: RehearsalContext,
  { n, what, prepare, dependentsExpected = false }: ReleasePlan,
): Promise<Record<string, string> | undefined> {
  ctx.log(`— release ${n}: ${what}`);
  const before = freshVersions(ctx.copy);
  await step(ctx, `release ${n}: changesets`, "see the message above", prepare);
  if (!ctx.quick) await contractGate(ctx, n, dependentsExpected);
  await versionPackages(ctx, n, before);
  await (ctx.quick ? reuseWorkingTreeBuild(ctx, n) : buildCopy(ctx, n));
  await checkImports(ctx, n);
  if (!ctx.quick) return undefined;
  return step(
    ctx,
    `release ${n}: pnpm pack of every public package on the copy (workspace: ranges become the released versions)`,
    "run `pnpm --filter <package> pack` in the repository and read its error",
    () => packAll(temp(ctx, "packs"), ctx.copy),
  );
}

function versionPackages(ctx: RehearsalContext, n: number, before: Record<string, string>): Promise<void> {
  return step(
    ctx,
    `release ${n}: ${ctx.quick ? "changeset version" : "pnpm version-packages (changeset version, the contracts' info.version and baselines, gen)"}`,
    "fix the changeset files named in the output (`pnpm changeset status` shows what would be released)",
    async () => {
      if (pendingChangesets(ctx).length > 0) {
        if (ctx.quick) await changesetCli(ctx, ["version"]);
        else
          await command(ctx, "npm", ["run", "version-packages"], {
            cwd: ctx.copy,
            env: env(ctx, { CI: "true" }),
          });
      }
      if (!ctx.quick) {
        await git(ctx, ["add", "-A"]);
        await git(ctx, ["commit", "-qm", `release ${n}`, "--allow-empty"]);
      }
      const after = freshVersions(ctx.copy);
      const bumped = Object.keys(after).filter((name) => after[name] !== before[name]);
      ctx.log(
        `  ${bumped.length === 0 ? "no version changes" : bumped.map((name) => `${name} ${before[name]} → ${after[name]}`).join("\n  ")}`,
      );
    },
  );
}

function buildCopy(ctx: RehearsalContext, n: number): Promise<string> {
  return step(
    ctx,
    `release ${n}: turbo run build on the copy`,
    "the failing package is named in turbo's output: build it in the repository (`pnpm --filter <package> build`)",
    () =>
      command(
        ctx,
        join(ctx.copy, "node_modules", ".bin", "turbo"),
        ["run", "build", "--output-logs=errors-only"],
        {
          cwd: ctx.copy,
          env: env(ctx, { CI: "true" }),
        },
      ),
  );
}

function reuseWorkingTreeBuild(ctx: RehearsalContext, n: number): Promise<void> {
  return step(
    ctx,
    `release ${n}: build (quick: the working tree's build, made by turbo before this suite)`,
    "run `pnpm build` first (the quick rehearsal reuses the working tree's dist/)",
    () => {
      for (const { dir, manifest } of publishablePackages(ctx.root)) {
        if (!existsSync(join(dir, "dist"))) throw new Error(`${manifest.name} has no dist/`);
        cpSync(join(dir, "dist"), join(ctx.copy, relative(ctx.root, dir), "dist"), { recursive: true });
      }
    },
  );
}

function checkImports(ctx: RehearsalContext, n: number): Promise<void> {
  const title = `release ${n}: every import of the built packages is a declared dependency`;
  return step(
    ctx,
    title,
    "add each package named below to that package's dependencies (`pnpm --filter <package> add <dependency>`)",
    () => {
      const problems = publishablePackages(ctx.copy).flatMap(({ dir, manifest }) =>
        undeclaredImports(dir, manifest).map(
          (m) => `${manifest.name} imports \`${m.imported}\` (${m.file}) but does not depend on it`,
        ),
      );
      if (problems.length > 0) {
        throw new RehearsalError(
          title,
          problems[0]?.split(" ")[0],
          "add each dependency named below to that package's dependencies (`pnpm --filter <package> add <dependency>`)",
          [...new Set(problems)].join("\n"),
        );
      }
    },
  );
}
