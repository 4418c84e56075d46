import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installEachAlone } from "./rehearse/alone.js";
import { pendingChangesets } from "./rehearse/changesets.js";
import { installConsumer } from "./rehearse/consumer.js";
import { checkConsumer } from "./rehearse/consumer-checks.js";
import { createContext, type RehearsalContext } from "./rehearse/context.js";
import { prepareCopy } from "./rehearse/copy.js";
import { history } from "./rehearse/history.js";
import { prepareRelease } from "./rehearse/prepare-release.js";
import { publishRelease } from "./rehearse/publish.js";
import { startTarget, useTarget } from "./rehearse/registry-target.js";
import { report } from "./rehearse/report.js";
import { keepRegistry, releaseAll } from "./rehearse/resources.js";
import type { KeptRegistry, RehearsalOptions, RehearsalResult, Target } from "./rehearse/types.js";

export { undeclaredImports } from "./rehearse/imports.js";
export { RehearsalError } from "./rehearse/rehearsal-error.js";
export type { KeptRegistry, RehearsalOptions, RehearsalResult } from "./rehearse/types.js";

/**
 * Runs the release path end to end against a throwaway Verdaccio: `changeset version`, build,
 * `changeset publish` (as .github/workflows/release.yml does) on a temporary copy of the repository, then
 * scratch consumers outside the workspace install our packages by semver range from that registry and use
 * them. Everything it started is stopped and every temporary directory removed however it ends; a failure is
 * a {@link RehearsalError}.
 *
 * @example
 * ```ts
 * const { published, seconds } = await rehearse({ quick: true });
 * ```
 */
export async function rehearse(options: RehearsalOptions = {}): Promise<RehearsalResult> {
  const rehearsal = new Rehearsal(options);
  try {
    return await rehearsal.run();
  } finally {
    await rehearsal.cleanup();
  }
}

/** One rehearsal's state; {@link rehearse} is the way to run it. Exported for the CLI's signal handler. */
export class Rehearsal {
  private readonly ctx: RehearsalContext;

  constructor(options: RehearsalOptions) {
    this.ctx = createContext(options);
  }

  /** Every temporary directory this rehearsal created (removed by {@link Rehearsal.cleanup}). */
  get temporary(): string[] {
    return this.ctx.temporary;
  }

  /** The registry's URL, once it started. */
  get registryUrl(): string | undefined {
    return this.ctx.registry?.url;
  }

  /** Stops every process this rehearsal started and removes its temporary directories (idempotent). */
  cleanup(): Promise<void> {
    return releaseAll(this.ctx);
  }

  /**
   * After a passing run: stops everything else and removes every temporary directory but the registry's, which
   * keeps serving what the rehearsal published until {@link Rehearsal.cleanup}. Only the rehearsal's own registry
   * can be kept (a caller's registry is the caller's to keep).
   */
  keepRegistry(): Promise<KeptRegistry> {
    return keepRegistry(this.ctx);
  }

  /** The rehearsal's stages: release 1 and its consumer; the full rehearsal then adds the release history. */
  async run(): Promise<RehearsalResult> {
    const ctx = this.ctx;
    begin(ctx);
    const [target, tarballs] = await registryAndFirstRelease(ctx);
    useTarget(ctx, target);
    await publishRelease(ctx, 1, tarballs);
    const consumer = await installConsumer(ctx);
    await checkConsumer(ctx, consumer, "release 1");
    if (!ctx.quick) {
      await history(ctx, consumer);
      await installEachAlone(ctx);
    }
    return report(ctx);
  }
}

function begin(ctx: RehearsalContext) {
  ctx.base = mkdtempSync(join(tmpdir(), "plant-store-rehearsal-"));
  ctx.temporary.push(ctx.base);
  const callers = ctx.callersRegistry;
  ctx.log(
    `release rehearsal (${ctx.quick ? "quick" : "full"}) against ${callers ? `the registry at ${callers}` : "a throwaway registry"}`,
  );
}

/**
 * The registry, and release 1 up to its publish. A caller's registry is checked before anything else starts; the
 * rehearsal's own starts while the copy is prepared, versioned, built and packed: nothing needs it before the
 * first publish.
 */
async function registryAndFirstRelease(
  ctx: RehearsalContext,
): Promise<[Target, Record<string, string> | undefined]> {
  const registry = startTarget(ctx);
  if (ctx.callersRegistry) await registry;
  return Promise.all([registry, firstRelease(ctx)]);
}

async function firstRelease(ctx: RehearsalContext): Promise<Record<string, string> | undefined> {
  await prepareCopy(ctx);
  return prepareRelease(ctx, {
    n: 1,
    what: "the pending changesets (the next real release)",
    prepare: () => {
      const pending = pendingChangesets(ctx);
      ctx.log(
        pending.length > 0
          ? `  ${pending.length} pending changeset(s) in .changeset/`
          : "  no pending changesets: the current versions are published as they are",
      );
    },
  });
}
