import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCOPE } from "../registry.js";
import type { Manifest } from "../workspace.js";
import { editContract, writeChangeset } from "./changesets.js";
import { changesetCli } from "./commands.js";
import { updateConsumer } from "./consumer.js";
import type { RehearsalContext } from "./context.js";
import { readJson, writeJson } from "./json.js";
import { packageNames, versionOf } from "./packages.js";
import { release } from "./publish.js";
import { view } from "./registry-documents.js";
import { step } from "./steps.js";
import { tsc } from "./tsc.js";

const SPEC = `${SCOPE}/spec`;

/**
 * The full rehearsal's release history after release 1, each release followed by the consumer's `npm update`: a
 * compatible contract change, a breaking one, a prerelease; then each package installed alone.
 *
 * @example
 * ```ts
 * await history(ctx, consumer);
 * ```
 */
export async function history(ctx: RehearsalContext, consumer: string): Promise<void> {
  await compatibleRelease(ctx, consumer);
  const specMajor = await breakingRelease(ctx, consumer);
  await prerelease(ctx, consumer, specMajor);
}

/** Under ^1.x an additive change is a minor; under ^0.y a minor is breaking, so the compatible release is a patch. */
function compatibleFor(version: string): "minor" | "patch" {
  return Number(version.split(".")[0]) >= 1 ? "minor" : "patch";
}

/** Release 2: an additive contract change (changesets and npm agree on the bump that stays compatible). */
async function compatibleRelease(ctx: RehearsalContext, consumer: string) {
  const specBefore = versionOf(ctx, SPEC);
  const compatible = compatibleFor(specBefore);
  await release(ctx, {
    n: 2,
    what: `a compatible contract change (an optional field) with a ${compatible} changeset`,
    prepare: async () => {
      if (compatible === "patch") {
        ctx.log(`  ${SPEC} is ${specBefore} (0.x): ^${specBefore} takes patches only, so this is a patch`);
      }
      await editContract(ctx, (yaml) =>
        yaml.replace(
          /(\n {4}Plant:\n(?:.*\n)*? {6}properties:\n)/,
          "$1        color:\n          description: Colour of the plant (rehearsal field).\n          type: string\n",
        ),
      );
      // The sender's admin API document embeds New Plant: the field is an additive change of that contract too.
      writeChangeset(
        ctx,
        "rehearsal-compatible",
        { [SPEC]: compatible, [`${SCOPE}/sender`]: compatibleFor(versionOf(ctx, `${SCOPE}/sender`)) },
        "New optional field `color`.",
      );
    },
  });
  await updateConsumer(ctx, consumer, "release 2", (before, after) => {
    if (after[SPEC] === before[SPEC]) {
      throw new Error(`npm update kept ${SPEC} at ${before[SPEC]}; expected ${versionOf(ctx, SPEC)}`);
    }
  });
  await step(
    ctx,
    "the consumer type-checks against the new contract types (uses the new optional field)",
    `check that ${SPEC}'s dist has the regenerated types (spec gen ran before build)`,
    () => {
      writeFileSync(
        join(consumer, "color.ts"),
        'import type { NewPlant } from "@plant-store/spec";\nexport const plant: NewPlant = { id: 1, name: "Fern", color: "green" };\n',
      );
      writeJson(join(consumer, "tsconfig.update.json"), {
        extends: "./tsconfig.json",
        files: ["consumer.ts", "color.ts"],
      });
      return tsc(ctx, consumer, "tsconfig.update.json");
    },
    SPEC,
  );
}

/** Release 3: a breaking contract change (ids must be positive: a narrowed type) with a major changeset. */
async function breakingRelease(ctx: RehearsalContext, consumer: string): Promise<string> {
  const specCompatible = versionOf(ctx, SPEC);
  await release(ctx, {
    n: 3,
    what: "a breaking contract change with a major changeset",
    prepare: async () => {
      await editContract(ctx, (yaml) =>
        yaml.replace(
          /(\n {12}id:\n {14}description: Identification number of the plant\.\n {14}type: integer\n {14}format: int64\n)/,
          "$1              minimum: 1\n",
        ),
      );
      // Only the spec's own changeset: the contract gate must ask the same of every package that depends on it.
      writeChangeset(ctx, "rehearsal-breaking", { [SPEC]: "major" }, "BREAKING: ids must be positive.");
    },
    dependentsExpected: true,
  });
  const specMajor = versionOf(ctx, SPEC);
  await updateConsumer(ctx, consumer, "release 3", (before, after) =>
    keepsTheMajorOut(ctx, consumer, { before, after, specCompatible, specMajor }),
  );
  await checkSpecReleases(ctx, specMajor);
  return specMajor;
}

interface MajorUpdate {
  before: Record<string, string>;
  after: Record<string, string>;
  specCompatible: string;
  specMajor: string;
}

/** After the major, `npm update` keeps the consumer's spec and every dependent the gate named where they were. */
function keepsTheMajorOut(
  ctx: RehearsalContext,
  consumer: string,
  { before, after, specCompatible, specMajor }: MajorUpdate,
) {
  if (after[SPEC] !== specCompatible) {
    throw new Error(
      `npm update moved ${SPEC} from ${specCompatible} to ${after[SPEC]}: ^${specCompatible} must not take ${specMajor}`,
    );
  }
  // The gate made every dependent of the spec release as breaking: none reaches the consumer's ^ ranges, and
  // so nothing it installed carries the new contract.
  if (ctx.gateDependents.size === 0)
    throw new Error("the contract gate named no dependents of the spec's major");
  for (const name of ctx.gateDependents) {
    if (after[name] !== before[name]) {
      throw new Error(
        `npm update moved ${name} from ${before[name]} to ${after[name]}: it depends on ${SPEC}@${specMajor}, which ^${before[name]} must not bring`,
      );
    }
  }
  for (const name of packageNames(ctx)) {
    const nested = join(consumer, "node_modules", name, "node_modules", SCOPE, "spec", "package.json");
    if (existsSync(nested)) {
      throw new Error(
        `${name}@${after[name]} brings ${SPEC}@${readJson<Manifest>(nested).version} along, beside the consumer's ${specCompatible}`,
      );
    }
  }
}

function checkSpecReleases(ctx: RehearsalContext, specMajor: string): Promise<void> {
  return step(
    ctx,
    `npm view: ${SPEC} has the three releases and latest is the new major`,
    "check `changeset publish` output above: each release must publish its version under `latest`",
    async () => {
      const seen = await view(ctx, SPEC);
      const expected = ctx.published[SPEC] ?? [];
      ctx.log(`  versions ${seen.versions.join(", ")}; dist-tags ${JSON.stringify(seen["dist-tags"])}`);
      for (const v of expected)
        if (!seen.versions.includes(v)) throw new Error(`${v} is not on the registry`);
      if (new Set(expected).size < 3)
        throw new Error(`expected three releases, published ${expected.join(", ")}`);
      if (seen["dist-tags"].latest !== specMajor) {
        throw new Error(`latest is ${seen["dist-tags"].latest}, not ${specMajor}`);
      }
    },
    SPEC,
  );
}

/** A prerelease channel: `changeset pre enter next` publishes under `next` and leaves `latest` alone. */
async function prerelease(ctx: RehearsalContext, consumer: string, specMajor: string) {
  await release(ctx, {
    n: 4,
    what: "a prerelease: `changeset pre enter next`",
    prepare: async () => {
      await changesetCli(ctx, ["pre", "enter", "next"]);
      writeChangeset(ctx, "rehearsal-prerelease", { [SPEC]: "patch" }, "A prerelease fix.");
    },
  });
  await step(
    ctx,
    "npm view: the prerelease is under `next`, `latest` is unchanged, and `npm update` ignores it",
    "publish prereleases only in pre mode (`changeset pre enter <tag>`), which publishes under that tag",
    async () => {
      const seen = await view(ctx, SPEC);
      const pre = versionOf(ctx, SPEC);
      ctx.log(`  dist-tags ${JSON.stringify(seen["dist-tags"])}`);
      if (!pre.includes("-next.")) throw new Error(`the prerelease version is ${pre}`);
      if (seen["dist-tags"].next !== pre) throw new Error(`next is ${seen["dist-tags"].next}, not ${pre}`);
      if (seen["dist-tags"].latest !== specMajor)
        throw new Error(`latest moved to ${seen["dist-tags"].latest}`);
    },
    SPEC,
  );
  await updateConsumer(ctx, consumer, "the prerelease", (before, after) => {
    if (after[SPEC] !== before[SPEC]) throw new Error(`npm update moved ${SPEC} to ${after[SPEC]}`);
  });
}
