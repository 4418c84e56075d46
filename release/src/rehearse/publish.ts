import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { command, env } from "./commands.js";
import { type RehearsalContext, registryOf } from "./context.js";
import { readJson } from "./json.js";
import { freshVersions } from "./packages.js";
import { prepareRelease, type ReleasePlan } from "./prepare-release.js";
import { packument } from "./registry-documents.js";
import { RehearsalError } from "./rehearsal-error.js";
import { step } from "./steps.js";

/**
 * One release on the copy, from its changesets to the registry serving it.
 *
 * @example
 * ```ts
 * await release(ctx, { n: 4, what: "a prerelease", prepare: () => changesetCli(ctx, ["pre", "enter", "next"]) });
 * ```
 */
export async function release(ctx: RehearsalContext, plan: ReleasePlan): Promise<void> {
  await publishRelease(ctx, plan.n, await prepareRelease(ctx, plan));
}

/**
 * Publishes what {@link prepareRelease} made (the quick rehearsal's tarballs, or with `pnpm release` in the full
 * one) and checks that the registry serves it.
 */
export async function publishRelease(
  ctx: RehearsalContext,
  n: number,
  tarballs: Record<string, string> | undefined,
): Promise<void> {
  // The registry's scope mapping (with the publishing user's token for the rehearsal's own registry), as the
  // release workflow's setup-node writes it.
  writeFileSync(join(ctx.copy, ".npmrc"), registryOf(ctx).npmrc);
  const output = tarballs
    ? await publishTarballs(ctx, n, tarballs)
    : await step(
        ctx,
        `release ${n}: pnpm release (turbo build + changeset publish, as release.yml) to the throwaway registry`,
        "read the publish output above: a failed build names its package; a refused upload names the package and the registry's answer",
        () => command(ctx, "npm", ["run", "release"], { cwd: ctx.copy, env: env(ctx, { CI: "true" }) }),
      );
  await checkServed(ctx, n, output);
}

/**
 * The quick release's publish of the tarballs `pnpm pack` made in one process on the copy (it rewrites the
 * `workspace:` ranges, as `pnpm publish` does under `changeset publish`): one `npm publish` per tarball, all at
 * once, under the dist-tag `changeset publish` would choose.
 */
async function publishTarballs(
  ctx: RehearsalContext,
  n: number,
  tarballs: Record<string, string>,
): Promise<string> {
  const pre = join(ctx.copy, ".changeset", "pre.json");
  const tag = existsSync(pre) ? readJson<{ mode: string; tag: string }>(pre) : undefined;
  const distTag = tag?.mode === "pre" ? tag.tag : "latest";
  const outputs = await step(
    ctx,
    `release ${n}: npm publish of every tarball, in parallel, under \`${distTag}\` to the throwaway registry`,
    "read npm's answer below: a refused upload names the package and the registry's reason",
    () =>
      Promise.all(
        Object.entries(tarballs).map(async ([name, tarball]) => {
          try {
            return await command(ctx, "npm", ["publish", tarball, "--tag", distTag, "--access", "public"], {
              cwd: ctx.copy,
              env: env(ctx, { CI: "true" }),
            });
          } catch (error) {
            throw new RehearsalError(
              `release ${n}: npm publish`,
              name,
              "read npm's answer below: a refused upload names the registry's reason",
              (error as Error).message,
            );
          }
        }),
      ),
  );
  return outputs.join("\n");
}

/** Every version this release published is on the registry; it is recorded as published. */
function checkServed(ctx: RehearsalContext, n: number, output: string): Promise<void> {
  return step(
    ctx,
    `release ${n}: the registry serves every version this release published`,
    "a package missing here was not published: see `changeset publish`'s output",
    async () => {
      const versions = freshVersions(ctx.copy);
      const fresh = Object.keys(versions).filter(
        (name) => !ctx.published[name]?.includes(versions[name] as string),
      );
      for (const name of fresh) {
        const view = await packument(ctx, name);
        if (!view.versions.includes(versions[name] as string)) {
          throw new RehearsalError(
            `release ${n}: publish`,
            name,
            "read `changeset publish`'s output below",
            `${name}@${versions[name]} is not on the registry (it has ${view.versions.join(", ") || "nothing"})\n${output.slice(-3000)}`,
          );
        }
        ctx.published[name] = [...(ctx.published[name] ?? []), versions[name] as string];
        ctx.log(`  ${name}@${versions[name]}`);
      }
      if (fresh.length === 0) throw new Error("this release published nothing new");
    },
  );
}
