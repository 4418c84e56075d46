import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCOPE } from "../registry.js";
import { type Manifest, ROOT } from "../workspace.js";
import { command, env, nativeBuildEnv } from "./commands.js";
import { type RehearsalContext, registryOf } from "./context.js";
import { runInstallScripts } from "./install-scripts.js";
import { readJson, writeJson } from "./json.js";
import { freshVersions, packageNames } from "./packages.js";
import { temp } from "./resources.js";
import { step } from "./steps.js";
import { tsc } from "./tsc.js";

/** The consumer project's files (release/consumer): a strict TypeScript user and a run-time smoke test. */
export const CONSUMER_FIXTURES = join(ROOT, "release", "consumer");

/** A project outside the workspace, with `.npmrc` mapping only our scope to the rehearsal's registry. */
export function consumerProject(
  ctx: RehearsalContext,
  dir: string,
  dependencies: Record<string, string>,
  dev: boolean,
) {
  mkdirSync(dir, { recursive: true });
  writeJson(join(dir, "package.json"), {
    name: "plant-store-rehearsal-consumer",
    private: true,
    type: "module",
    dependencies,
    ...(dev ? { devDependencies: { typescript: "5.9.3", "@types/node": "20.19.43" } } : {}),
  });
  writeFileSync(join(dir, ".npmrc"), `${SCOPE}:registry=${registryOf(ctx).url}\n`);
}

/** `npm install` in a consumer, native builds included. */
export function npmInstall(ctx: RehearsalContext, dir: string, args: string[] = []): Promise<string> {
  return command(ctx, "npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...args], {
    cwd: dir,
    env: nativeBuildEnv(ctx),
    timeout: 900_000,
  });
}

/** Package name → the version a consumer has installed, for our packages it has. */
function installed(ctx: RehearsalContext, dir: string): Record<string, string> {
  return Object.fromEntries(
    packageNames(ctx)
      .filter((name) => existsSync(join(dir, "node_modules", name, "package.json")))
      .map((name) => [name, readJson<Manifest>(join(dir, "node_modules", name, "package.json")).version]),
  );
}

/**
 * The consumer of every public package: installed by `^` range of the versions just published, from the
 * registry. Returns its directory.
 *
 * @example
 * ```ts
 * const consumer = await installConsumer(ctx);
 * ```
 */
export async function installConsumer(ctx: RehearsalContext): Promise<string> {
  const dir = join(temp(ctx, "consumer"), "app");
  const ranges = Object.fromEntries(Object.entries(freshVersions(ctx.copy)).map(([n, v]) => [n, `^${v}`]));
  await step(
    ctx,
    `consumer: npm install every public package by range (${Object.values(ranges)[0]} …) from the registry`,
    "read npm's error: an unresolvable range names the dependent package; an ETARGET means the version was not published",
    async () => {
      consumerProject(ctx, dir, ranges, true);
      for (const file of ["consumer.ts", "tsconfig.json", "smoke.mjs"]) {
        cpSync(join(CONSUMER_FIXTURES, file), join(dir, file));
      }
      ctx.log(`  ${dir}`);
      if (ctx.quick) {
        // npm's cache first for the public packages (ours are never cached: the rehearsal's registry answers
        // no-store; a caller's may not, so there npm revalidates as usual), and install scripts afterwards, where
        // a native build this machine already made can stand in for one.
        await npmInstall(ctx, dir, [
          ...(ctx.callersRegistry ? [] : ["--prefer-offline"]),
          "--ignore-scripts",
        ]);
        await runInstallScripts(ctx, dir);
      } else {
        await npmInstall(ctx, dir);
      }
      const now = installed(ctx, dir);
      for (const [name, version] of Object.entries(freshVersions(ctx.copy))) {
        if (now[name] !== version) throw new Error(`${name}: installed ${now[name]}, published ${version}`);
      }
    },
  );
  return dir;
}

/**
 * `npm update` in the consumer after a release; `check` judges what moved (before → after), then the consumer
 * type-checks and runs again.
 */
export async function updateConsumer(
  ctx: RehearsalContext,
  dir: string,
  label: string,
  check: (before: Record<string, string>, after: Record<string, string>) => void,
): Promise<void> {
  await step(
    ctx,
    `consumer: npm update after ${label}`,
    "a range that takes a breaking release, or misses a compatible one, means the wrong bump in a changeset",
    async () => {
      const before = installed(ctx, dir);
      await command(ctx, "npm", ["update", "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: dir,
        env: env(ctx, { npm_config_prefer_online: "true" }),
        timeout: 600_000,
      });
      const after = installed(ctx, dir);
      const moved = Object.keys(after).filter((n) => after[n] !== before[n]);
      ctx.log(
        `  ${moved.length === 0 ? "nothing moved" : moved.map((n) => `${n} ${before[n]} → ${after[n]}`).join("\n  ")}`,
      );
      check(before, after);
      await tsc(ctx, dir, "tsconfig.json");
      await command(ctx, process.execPath, ["smoke.mjs", JSON.stringify(packageNames(ctx))], {
        cwd: dir,
        env: env(ctx),
      });
    },
  );
}
