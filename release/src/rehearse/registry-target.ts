import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkRegistryUrl, pingRegistry, SCOPE, startRegistry, upstreamRegistry } from "../registry.js";
import { command, env } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { RehearsalError } from "./rehearsal-error.js";
import { step } from "./steps.js";
import type { Target } from "./types.js";

/**
 * Starts the registry the rehearsal publishes to: the caller's is checked (`--registry`), the rehearsal's own
 * Verdaccio is started. The cleanup stops it however far its start got.
 *
 * @example
 * ```ts
 * const registry = startTarget(ctx);
 * useTarget(ctx, await registry);
 * ```
 */
export function startTarget(ctx: RehearsalContext): Promise<Target> {
  if (ctx.callersRegistry) {
    ctx.registryStart = reachCallersRegistry(ctx, ctx.callersRegistry);
    return ctx.registryStart;
  }
  return step(
    ctx,
    "start Verdaccio (release/rehearsal, pinned) on loopback with its storage in a temporary directory",
    "check that the npm registry is reachable (Verdaccio installs once with npm into ~/.cache/plant-store-release/registry)",
    () => {
      ctx.registryStart = startRegistry({
        home: join(ctx.base, "registry"),
        orphanCleanup: ctx.base,
        signal: ctx.abort.signal,
      });
      return ctx.registryStart;
    },
  );
}

/** From here on the rehearsal publishes to and installs from `started`. */
export function useTarget(ctx: RehearsalContext, started: Target): void {
  ctx.registry = started;
  if (started.storage) {
    ctx.temporary.push(dirname(started.storage));
    ctx.log(
      `  ${started.url} (Verdaccio pid ${started.pid}) holds ${SCOPE}/* only; every other package comes from the real registry`,
    );
  }
}

/**
 * The caller's registry (`--registry`): a throwaway one by its URL, answering, and one npm has a login for (the
 * rehearsal reads no token; npm sends the one `npm adduser --registry <url>` stored). It is never stopped.
 */
function reachCallersRegistry(ctx: RehearsalContext, raw: string): Promise<Target> {
  const title = `reach the registry at ${raw} and npm's login for it`;
  return step(ctx, title, "see below", async () => {
    const checked = checkRegistryUrl(raw, await upstreamRegistry());
    if ("problem" in checked) {
      throw new RehearsalError(
        title,
        undefined,
        "pass the URL of a throwaway registry you run, e.g. your own Verdaccio (`npx verdaccio`)",
        checked.problem,
      );
    }
    const { url } = checked;
    const silent = await pingRegistry(url);
    if (silent) {
      throw new RehearsalError(
        title,
        undefined,
        `start the registry (for Verdaccio: \`npx verdaccio --listen ${new URL(url).host}\`), or pass the URL it listens on`,
        `${url} does not answer: ${silent}`,
      );
    }
    const user = await npmLogin(ctx, title, url);
    ctx.log(
      `  ${url} answers; npm publishes to it as ${user}; ${SCOPE}/* is installed from it, every other package from the real registry; the rehearsal never stops it`,
    );
    return { url, npmrc: `${SCOPE}:registry=${url}\n`, stop: async () => {} };
  });
}

/** The user npm publishes to `url` as (`npm whoami`), or a failure saying how to log in. */
async function npmLogin(ctx: RehearsalContext, title: string, url: string): Promise<string> {
  try {
    const out = await command(ctx, "npm", ["whoami", "--registry", url], {
      cwd: tmpdir(),
      env: env(ctx),
      timeout: 60_000,
      stdout: true,
    });
    return out.trim();
  } catch (error) {
    throw new RehearsalError(
      title,
      undefined,
      `log in to it first: npm adduser --registry ${url}`,
      `npm has no login for ${url}:\n${(error as Error).message}`,
    );
  }
}
