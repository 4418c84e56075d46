import type { RehearsalContext } from "./context.js";
import { registryOf } from "./context.js";
import { packageNames } from "./packages.js";
import { packument } from "./registry-documents.js";
import { step } from "./steps.js";
import type { RehearsalResult } from "./types.js";

/**
 * The rehearsal's result: every published version and the registry's dist-tags, logged and returned.
 *
 * @example
 * ```ts
 * const { published, distTags } = await report(ctx);
 * ```
 */
export async function report(ctx: RehearsalContext): Promise<RehearsalResult> {
  const distTags: Record<string, Record<string, string>> = {};
  await step(
    ctx,
    "the registry's documents: every published version and dist-tag",
    "see the step above for the package whose versions are missing",
    async () => {
      const names = packageNames(ctx);
      const views = await Promise.all(names.map((name) => packument(ctx, name)));
      names.forEach((name, i) => {
        const view = views[i] as Awaited<ReturnType<typeof packument>>;
        distTags[name] = view["dist-tags"];
        ctx.log(`  ${name}: ${view.versions.join(", ")}  ${JSON.stringify(view["dist-tags"])}`);
      });
    },
  );
  const seconds = (Date.now() - ctx.started) / 1000;
  ctx.log(`release rehearsal (${ctx.quick ? "quick" : "full"}) passed in ${seconds.toFixed(0)} s`);
  return {
    published: ctx.published,
    distTags,
    seconds,
    registry: registryOf(ctx).url,
    temporary: [...ctx.temporary],
  };
}
