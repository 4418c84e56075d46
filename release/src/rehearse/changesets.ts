import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pnpmCommand } from "../workspace.js";
import { command, env } from "./commands.js";
import type { RehearsalContext } from "./context.js";

/** The copy's pending changeset files. */
export function pendingChangesets(ctx: RehearsalContext): string[] {
  return readdirSync(join(ctx.copy, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
}

/**
 * Writes a changeset into the copy, as `pnpm changeset` would.
 *
 * @example
 * ```ts
 * writeChangeset(ctx, "rehearsal-breaking", { "@plant-store/spec": "major" }, "BREAKING: ids must be positive.");
 * ```
 */
export function writeChangeset(
  ctx: RehearsalContext,
  file: string,
  bumps: Record<string, string>,
  summary: string,
): void {
  const header = Object.entries(bumps)
    .map(([name, bump]) => `"${name}": ${bump}`)
    .join("\n");
  writeFileSync(join(ctx.copy, ".changeset", `${file}.md`), `---\n${header}\n---\n\n${summary}\n`);
}

/** Edits spec/openapi.yaml and regenerates what is generated from it, as a contributor does before committing. */
export async function editContract(ctx: RehearsalContext, edit: (yaml: string) => string): Promise<void> {
  const file = join(ctx.copy, "spec", "openapi.yaml");
  const before = readFileSync(file, "utf8");
  const after = edit(before);
  if (after === before) throw new Error("the rehearsal's contract edit did not apply to spec/openapi.yaml");
  writeFileSync(file, after);
  const [pnpm, prefix] = pnpmCommand(ctx.copy);
  await command(ctx, pnpm, [...prefix, "-r", "run", "gen"], { cwd: ctx.copy, env: env(ctx, { CI: "true" }) });
  ctx.log(
    "  pnpm -r run gen: the spec's generated types and the sender's admin API document follow the edit",
  );
}
