import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { RehearsalContext } from "./context.js";
import type { KeptRegistry } from "./types.js";

/** A new directory inside the rehearsal's temporary root, removed by {@link releaseAll}. */
export function temp(ctx: RehearsalContext, prefix: string): string {
  const dir = mkdtempSync(join(ctx.base, `${prefix}-`));
  ctx.temporary.push(dir);
  ctx.cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Sends `signal` to a child's whole process group, if it still runs. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {}
}

/**
 * Stops every process the rehearsal started and removes its temporary directories (idempotent).
 *
 * @example
 * ```ts
 * try { await run(ctx); } finally { await releaseAll(ctx); }
 * ```
 */
export async function releaseAll(ctx: RehearsalContext): Promise<void> {
  stopCommandsAndApps(ctx);
  // Processes first (the registry, also one still starting: the abort ends its start), then the directories.
  const registry = await ctx.registryStart?.catch(() => undefined);
  await registry?.stop();
  await removeTemporary(ctx);
  if (ctx.base) rmSync(ctx.base, { recursive: true, force: true });
}

/**
 * After a passing run: stops everything else and removes every temporary directory but the registry's, which
 * keeps serving what the rehearsal published until {@link releaseAll}. Only the rehearsal's own registry can be
 * kept (a caller's registry is the caller's to keep).
 */
export async function keepRegistry(ctx: RehearsalContext): Promise<KeptRegistry> {
  const registry = ctx.registry;
  if (!registry?.storage || registry.pid === undefined) {
    throw new Error("only a passing rehearsal's own registry can be kept");
  }
  stopCommandsAndApps(ctx);
  await removeTemporary(ctx);
  return { url: registry.url, storage: registry.storage, pid: registry.pid };
}

function stopCommandsAndApps(ctx: RehearsalContext) {
  ctx.abort.abort();
  for (const child of ctx.children) killGroup(child, "SIGKILL");
  ctx.children.clear();
}

async function removeTemporary(ctx: RehearsalContext) {
  while (ctx.cleanups.length > 0) {
    const next = ctx.cleanups.pop() as () => Promise<void> | void;
    try {
      await next();
    } catch (error) {
      ctx.log(`  cleanup: ${(error as Error).message}`);
    }
  }
}
