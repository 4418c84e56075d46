import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeChangeset } from "./changesets.js";
import type { RehearsalContext } from "./context.js";
import { step } from "./steps.js";

/** What the copy's contract gate (contracts/src/check.mjs) answers, as far as the rehearsal reads it. */
interface Gate {
  ok: boolean;
  dependents: { name: string; version: string; needed: string; through: string[] }[];
}

/** The copy's own contract gate, loaded from its files (the gate the release is made with). */
interface GateModule {
  checkContracts(root: string): Promise<Gate>;
  formatReport(result: Gate): string;
}

/**
 * The copy's contract gate (`pnpm contract:check`, which `npm test` runs before a merge), read as values. When a
 * package is about to take a breaking release and the gate names dependents that would be released as patches,
 * this writes the changeset the gate asks for (each dependent with the bump shown), as a contributor would, and
 * checks again: the release goes ahead only once the gate passes.
 *
 * @example
 * ```ts
 * await contractGate(ctx, 3, true); // ctx.gateDependents names the spec's dependents
 * ```
 */
export async function contractGate(
  ctx: RehearsalContext,
  n: number,
  dependentsExpected: boolean,
): Promise<void> {
  const gate = await loadGate(ctx);
  await step(
    ctx,
    `release ${n}: the contract gate (pnpm contract:check) ${dependentsExpected ? "refuses dependents released as patches, then passes" : "passes"}`,
    "read the gate's report below: it names each change and the changeset it needs",
    async () => {
      let result = await gate.checkContracts(ctx.copy);
      if (dependentsExpected !== result.dependents.length > 0) {
        throw new Error(
          dependentsExpected
            ? `the gate let a breaking release through whose dependents would be released as patches:\n${gate.formatReport(result)}`
            : `the gate asks breaking releases of dependents here:\n${gate.formatReport(result)}`,
        );
      }
      if (result.dependents.length > 0) {
        bumpDependents(ctx, n, result);
        result = await gate.checkContracts(ctx.copy);
      }
      if (!result.ok) throw new Error(gate.formatReport(result));
    },
  );
}

async function loadGate(ctx: RehearsalContext): Promise<GateModule> {
  const url = (file: string) => pathToFileURL(join(ctx.copy, "contracts", "src", file)).href;
  const { checkContracts } = (await import(url("check.mjs"))) as Pick<GateModule, "checkContracts">;
  const { formatReport } = (await import(url("report.mjs"))) as Pick<GateModule, "formatReport">;
  return { checkContracts, formatReport };
}

/** The changeset the gate asks for: each dependent it names, with the bump it shows. */
function bumpDependents(ctx: RehearsalContext, n: number, result: Gate) {
  for (const d of result.dependents) {
    ctx.log(`  the gate: ${d.name} ${d.version} needs ${d.needed} (${d.through.join(" → ")})`);
    ctx.gateDependents.add(d.name);
  }
  writeChangeset(
    ctx,
    `rehearsal-dependents-${n}`,
    Object.fromEntries(result.dependents.map((d) => [d.name, d.needed])),
    "Built on the new major of the contract: its types and what it accepts changed.",
  );
}
