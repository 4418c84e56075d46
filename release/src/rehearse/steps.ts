import type { RehearsalContext } from "./context.js";
import { RehearsalError } from "./rehearsal-error.js";

/**
 * Runs one step of the rehearsal: logs its title and, when it ends, its time; a failure becomes a
 * {@link RehearsalError} naming the step, the package and the hint (one thrown inside keeps its own).
 *
 * @example
 * ```ts
 * await step(ctx, "consumer: npm install", "read npm's error", () => npmInstall(ctx, dir));
 * ```
 */
export async function step<T>(
  ctx: RehearsalContext,
  title: string,
  hint: string,
  fn: () => Promise<T> | T,
  pkg?: string,
): Promise<T> {
  const t0 = Date.now();
  const count = ++ctx.steps;
  let beside = ctx.running > 0;
  ctx.running++;
  ctx.log(`▸ ${title}`);
  try {
    const result = await fn();
    beside ||= ctx.running > 1 || ctx.steps !== count;
    const seconds = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    ctx.log(beside ? `  ✓ ${seconds}  (${title})` : `  ✓ ${seconds}`);
    return result;
  } catch (error) {
    if (error instanceof RehearsalError) throw error;
    throw new RehearsalError(title, pkg, hint, (error as Error).message);
  } finally {
    ctx.running--;
  }
}
