import { join } from "node:path";
import { SCOPE } from "../registry.js";
import { type CommandOptions, exec } from "./command.js";
import type { RehearsalContext } from "./context.js";

const GIT = ["-c", "user.name=rehearsal", "-c", "user.email=rehearsal@example.invalid"];

/**
 * The environment of every npm/pnpm/changeset call: only our scope maps to the rehearsal's registry (as
 * `npm_config_@plant-store:registry`, which changesets reads for `npm info`). npm's own cache serves the public
 * packages; the rehearsal's own registry answers `no-store`, so nothing of ours is ever read from it.
 *
 * @example
 * ```ts
 * await command(ctx, "npm", ["run", "release"], { cwd: ctx.copy, env: env(ctx, { CI: "true" }) });
 * ```
 */
export function env(ctx: RehearsalContext, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // The copy's own tools first (its pinned pnpm: changesets publishes with `pnpm publish`), as `pnpm release`
    // has them.
    PATH: `${join(ctx.copy || ctx.root, "node_modules", ".bin")}:${process.env.PATH}`,
    ...(ctx.registry ? { [`npm_config_${SCOPE}:registry`]: ctx.registry.url } : {}),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    // No real credential reaches the rehearsal: the throwaway registry's token is in the copy's .npmrc only
    // (setup-node's .npmrc would otherwise send NODE_AUTH_TOKEN to the real registry).
    NPM_TOKEN: "",
    NODE_AUTH_TOKEN: "",
    TURBO_TELEMETRY_DISABLED: "1",
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
    ...extra,
  };
}

/** Runs a command for the rehearsal: its cleanup kills the command if it still runs. */
export function command(
  ctx: RehearsalContext,
  cmd: string,
  args: string[],
  options: Omit<CommandOptions, "signal">,
): Promise<string> {
  return exec(cmd, args, { ...options, signal: ctx.abort.signal });
}

/** git in the copy, as the rehearsal's own committer. */
export function git(ctx: RehearsalContext, args: string[]): Promise<string> {
  return command(ctx, "git", [...GIT, ...args], { cwd: ctx.copy });
}

/** The copy's changesets CLI, as CI runs it. */
export function changesetCli(ctx: RehearsalContext, args: string[]): Promise<string> {
  return command(ctx, join(ctx.copy, "node_modules", ".bin", "changeset"), args, {
    cwd: ctx.copy,
    env: env(ctx, { CI: "true" }),
  });
}

/** {@link env} for npm calls that may compile native addons: node-gyp builds against the installed Node headers. */
export function nativeBuildEnv(ctx: RehearsalContext): NodeJS.ProcessEnv {
  return env(ctx, { npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" });
}
