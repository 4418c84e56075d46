import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { CACHE, replaceFile } from "./cache.js";
import {
  checkRegistryUrl,
  pingRegistry,
  type Registry,
  SCOPE,
  startRegistry,
  upstreamRegistry,
} from "./registry.js";
import {
  copyWorkspace,
  type Manifest,
  packAll,
  pnpmCommand,
  publishablePackages,
  ROOT,
} from "./workspace.js";

const execFileAsync = promisify(execFile);

/** What a rehearsal covers. */
export interface RehearsalOptions {
  /**
   * One release and one consumer of every package: what `npm test` runs. It publishes the working tree's build
   * (turbo built it before the release tests), packed by pnpm on the copy and published by npm in parallel; its
   * consumer takes npm's cache first and better-sqlite3's native binary from the workspace's build of the same
   * version. The full rehearsal builds on the copy, publishes with `pnpm release` (changeset publish), compiles
   * better-sqlite3 in its consumers, and adds the release history, the prerelease channel and one consumer per
   * package.
   */
  quick?: boolean;
  /** Where progress lines go (default: stdout). */
  log?: (line: string) => void;
  /** The repository to rehearse (default: this one); it must be a git checkout. */
  root?: string;
  /**
   * A registry the caller runs (e.g. their own Verdaccio), as a URL: the rehearsal publishes there, with the login
   * npm has for it (`npm adduser --registry <url>`), instead of starting one, and never stops it. Default: a
   * throwaway Verdaccio of the rehearsal's own.
   */
  registry?: string;
}

/** The registry a rehearsal publishes to: its own Verdaccio, or the caller's (never stopped, no storage of ours). */
type Target = Pick<Registry, "url" | "npmrc" | "stop"> & Partial<Pick<Registry, "pid" | "storage">>;

/** The rehearsal's own registry, kept serving after a passing run (`--keep`). */
export interface KeptRegistry {
  url: string;
  /** Verdaccio's storage directory: what the rehearsal published, as files. */
  storage: string;
  pid: number;
}

/** What a rehearsal published, for the caller (and the tests) to check. */
export interface RehearsalResult {
  /** Package name → every version published, in order. */
  published: Record<string, string[]>;
  /** Package name → dist-tags as the registry reported them at the end. */
  distTags: Record<string, Record<string, string>>;
  seconds: number;
  /**
   * The registry's URL and the temporary directories it used: all gone once {@link rehearse} returns (a caller's
   * registry keeps serving).
   */
  registry: string;
  temporary: string[];
}

/** A failed rehearsal: which step, which package, what to do. Its message says all three. */
export class RehearsalError extends Error {
  constructor(
    readonly step: string,
    readonly pkg: string | undefined,
    readonly hint: string,
    detail: string,
  ) {
    super(
      `release rehearsal failed at step "${step}"${pkg ? ` for ${pkg}` : ""}\n  what to do: ${hint}\n\n${detail}`,
    );
    this.name = "RehearsalError";
  }
}

/** A command that failed: its command line, exit code and the tail of what it printed. */
class CommandError extends Error {}

interface Exec {
  cwd: string;
  /** Kills the command when aborted: the rehearsal's cleanup aborts whatever still runs. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  timeout?: number;
  /** Return stdout only (JSON answers); by default stdout and stderr. */
  stdout?: boolean;
}

/** What the copy's contract gate (contracts/src/check.mjs) answers, as far as the rehearsal reads it. */
interface Gate {
  ok: boolean;
  dependents: { name: string; version: string; needed: string; through: string[] }[];
}

/** The running rehearsal's signal: its cleanup aborts the commands it started (one rehearsal at a time). */
let current: AbortSignal | undefined;

async function exec(
  cmd: string,
  args: string[],
  { cwd, env, timeout = 600_000, stdout: only, signal = current }: Exec,
): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(cmd, args, {
      cwd,
      ...(signal ? { signal } : {}),
      env: env ?? process.env,
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
    return only ? stdout : `${stdout}${stderr}`;
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    const output = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n").slice(-60).join("\n");
    throw new CommandError(
      `\`${cmd} ${args.join(" ")}\` in ${cwd} ${e.killed ? `timed out after ${timeout / 1000} s` : `exited with ${e.code}`}:\n${output}`,
    );
  }
}

/** Package names of a built file's bare imports (static, dynamic, re-exports); comments are not code. */
function importedPackages(source: string): Set<string> {
  const found = new Set<string>();
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"'./#][^"']*)["']/gm;
  for (const match of code.matchAll(pattern)) {
    const specifier = match[1] as string;
    if (specifier.startsWith("node:")) continue; // `#…` (package imports) are excluded by the pattern
    const parts = specifier.split("/");
    found.add(specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
  }
  return found;
}

/**
 * The packages of a node_modules tree that npm builds at install time: those with an install, preinstall or
 * postinstall script, or a binding.gyp (npm runs `node-gyp rebuild` for those).
 */
function packagesToBuild(modules: string): { name: string; version: string; dir: string }[] {
  const found: { name: string; version: string; dir: string }[] = [];
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@")
      ? readdirSync(join(modules, entry.name)).map((name) => join(modules, entry.name, name))
      : [join(modules, entry.name)];
    for (const dir of dirs) {
      if (!existsSync(join(dir, "package.json"))) continue;
      const manifest = readJson<Manifest & { scripts?: Record<string, string> }>(join(dir, "package.json"));
      const scripts = manifest.scripts ?? {};
      if (
        scripts.install ||
        scripts.preinstall ||
        scripts.postinstall ||
        existsSync(join(dir, "binding.gyp"))
      ) {
        found.push({ name: manifest.name, version: manifest.version, dir });
      }
      found.push(...packagesToBuild(join(dir, "node_modules")));
    }
  }
  return found;
}

function jsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(".js"))
    .map((d) => join(d.parentPath, d.name));
}

/**
 * Every bare import of a package's built JavaScript that its manifest does not declare (dependencies, peer or
 * optional dependencies): what fails for a user who installs the package from a registry.
 *
 * @example
 * ```ts
 * undeclaredImports("/repo/apps/receiver", manifest); // [{ file: "dist/log.js", imported: "pino" }]
 * ```
 */
export function undeclaredImports(dir: string, manifest: Manifest): { file: string; imported: string }[] {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(
      (manifest as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {},
    ),
  ]);
  const builtins = new Set(builtinModules);
  const missing: { file: string; imported: string }[] = [];
  for (const file of jsFiles(join(dir, "dist"))) {
    for (const imported of importedPackages(readFileSync(file, "utf8"))) {
      if (!declared.has(imported) && !builtins.has(imported)) {
        missing.push({ file: relative(dir, file), imported });
      }
    }
  }
  return missing;
}

function freshVersions(root: string): Record<string, string> {
  return Object.fromEntries(publishablePackages(root).map((p) => [p.manifest.name, p.manifest.version]));
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

const CONSUMER_FIXTURES = join(ROOT, "release", "consumer");
const GIT = ["-c", "user.name=rehearsal", "-c", "user.email=rehearsal@example.invalid"];

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
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private readonly children = new Set<ChildProcess>();
  private readonly log: (line: string) => void;
  private readonly quick: boolean;
  private readonly root: string;
  /** Every temporary directory this rehearsal created (removed by {@link Rehearsal.cleanup}). */
  readonly temporary: string[] = [];
  private readonly started = Date.now();
  private readonly abort = new AbortController();
  private readonly published: Record<string, string[]> = {};
  private registry!: Target;
  /** The registry's start, from the moment it began: {@link Rehearsal.cleanup} stops it however far it got. */
  private registryStart?: Promise<Target>;
  private readonly callersRegistry: string | undefined;
  /** The one temporary directory everything else of this rehearsal lives in (Verdaccio removes it if orphaned). */
  private base!: string;
  private copy!: string;
  /** Packages the contract gate made release as breaking because a dependency of theirs did. */
  private readonly gateDependents = new Set<string>();
  /** Steps running now, and steps started so far: a step that ran beside another names itself when it ends. */
  private running = 0;
  private steps = 0;

  constructor(options: RehearsalOptions) {
    this.log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
    this.quick = options.quick ?? false;
    this.root = options.root ?? ROOT;
    this.callersRegistry = options.registry;
  }

  /** The throwaway registry's URL, once it started. */
  get registryUrl(): string | undefined {
    return (this.registry as Target | undefined)?.url;
  }

  /** Stops every process this rehearsal started and removes its temporary directories (idempotent). */
  async cleanup(): Promise<void> {
    this.abort.abort();
    for (const child of this.children) this.killGroup(child, "SIGKILL");
    this.children.clear();
    // Processes first (the registry, also one still starting: the abort ends its start), then the directories.
    const registry = await this.registryStart?.catch(() => undefined);
    await registry?.stop();
    await this.removeTemporary();
    if (this.base) rmSync(this.base, { recursive: true, force: true });
  }

  /**
   * After a passing run: stops everything else and removes every temporary directory but the registry's, which
   * keeps serving what the rehearsal published until {@link Rehearsal.cleanup}. Only the rehearsal's own registry
   * can be kept (a caller's registry is the caller's to keep).
   */
  async keepRegistry(): Promise<KeptRegistry> {
    const registry = this.registry as Target | undefined;
    if (!registry?.storage || registry.pid === undefined) {
      throw new Error("only a passing rehearsal's own registry can be kept");
    }
    this.abort.abort();
    for (const child of this.children) this.killGroup(child, "SIGKILL");
    this.children.clear();
    await this.removeTemporary();
    return { url: registry.url, storage: registry.storage, pid: registry.pid };
  }

  private async removeTemporary() {
    while (this.cleanups.length > 0) {
      const next = this.cleanups.pop() as () => Promise<void> | void;
      try {
        await next();
      } catch (error) {
        this.log(`  cleanup: ${(error as Error).message}`);
      }
    }
  }

  private killGroup(child: ChildProcess, signal: NodeJS.Signals) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {}
  }

  /** A new directory inside the rehearsal's temporary root. */
  private temp(prefix: string): string {
    const dir = mkdtempSync(join(this.base, `${prefix}-`));
    this.temporary.push(dir);
    this.cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  private async step<T>(title: string, hint: string, fn: () => Promise<T> | T, pkg?: string): Promise<T> {
    const t0 = Date.now();
    const count = ++this.steps;
    let beside = this.running > 0;
    this.running++;
    this.log(`▸ ${title}`);
    try {
      const result = await fn();
      beside ||= this.running > 1 || this.steps !== count;
      const seconds = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
      this.log(beside ? `  ✓ ${seconds}  (${title})` : `  ✓ ${seconds}`);
      return result;
    } catch (error) {
      if (error instanceof RehearsalError) throw error;
      throw new RehearsalError(title, pkg, hint, (error as Error).message);
    } finally {
      this.running--;
    }
  }

  /**
   * The environment of every npm/pnpm/changeset call: only our scope maps to the throwaway registry (as
   * `npm_config_@plant-store:registry`, which changesets reads for `npm info`). npm's own cache serves the public
   * packages; the registry answers `no-store`, so nothing of ours is ever read from it.
   */
  private env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const registry = this.registry as Registry | undefined;
    return {
      ...process.env,
      // The copy's own tools first (its pinned pnpm: changesets publishes with `pnpm publish`), as `pnpm release`
      // has them.
      PATH: `${join(this.copy ?? this.root, "node_modules", ".bin")}:${process.env.PATH}`,
      ...(registry ? { [`npm_config_${SCOPE}:registry`]: registry.url } : {}),
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

  async run(): Promise<RehearsalResult> {
    current = this.abort.signal;
    this.base = mkdtempSync(join(tmpdir(), "plant-store-rehearsal-"));
    this.temporary.push(this.base);
    const callers = this.callersRegistry;
    this.log(
      `release rehearsal (${this.quick ? "quick" : "full"}) against ${callers ? `the registry at ${callers}` : "a throwaway registry"}`,
    );
    // A caller's registry is checked first (a second at most); the rehearsal's own starts while the copy is
    // prepared, versioned, built and packed: nothing needs it before the first publish.
    if (callers) this.registryStart = this.reachCallersRegistry(callers);
    const registry = callers
      ? (this.registryStart as Promise<Target>)
      : this.step(
          "start Verdaccio (release/rehearsal, pinned) on loopback with its storage in a temporary directory",
          "check that the npm registry is reachable (Verdaccio installs once with npm into ~/.cache/plant-store-release/registry)",
          () => {
            this.registryStart = startRegistry({
              home: join(this.base, "registry"),
              orphanCleanup: this.base,
              signal: this.abort.signal,
            });
            return this.registryStart;
          },
        );
    if (callers) await registry;
    const [started, built] = await Promise.all([
      registry,
      (async () => {
        await this.prepareCopy();
        return this.prepareRelease(1, "the pending changesets (the next real release)", () => {
          const pending = this.pendingChangesets();
          this.log(
            pending.length > 0
              ? `  ${pending.length} pending changeset(s) in .changeset/`
              : "  no pending changesets: the current versions are published as they are",
          );
        });
      })(),
    ]);
    this.registry = started;
    if (started.storage) {
      this.temporary.push(dirname(started.storage));
      this.log(
        `  ${started.url} (Verdaccio pid ${started.pid}) holds ${SCOPE}/* only; every other package comes from the real registry`,
      );
    }
    await this.publishRelease(1, built);
    const consumer = await this.installConsumer();
    await this.checkConsumer(consumer, "release 1");
    if (this.quick) return this.finish();

    // Release 2: an additive contract change. Under ^1.x that is a minor; under ^0.y a minor is breaking, so
    // for a 0.x contract the compatible release is a patch (changesets and npm agree on that rule).
    const specBefore = this.version(`${SCOPE}/spec`);
    const compatibleFor = (version: string) => (Number(version.split(".")[0]) >= 1 ? "minor" : "patch");
    const compatible = compatibleFor(specBefore);
    await this.release(
      2,
      `a compatible contract change (an optional field) with a ${compatible} changeset`,
      async () => {
        if (compatible === "patch") {
          this.log(
            `  ${SCOPE}/spec is ${specBefore} (0.x): ^${specBefore} takes patches only, so this is a patch`,
          );
        }
        await this.editContract((yaml) =>
          yaml.replace(
            /(\n {4}Plant:\n(?:.*\n)*? {6}properties:\n)/,
            "$1        color:\n          description: Colour of the plant (rehearsal field).\n          type: string\n",
          ),
        );
        // The sender's admin API document embeds New Plant: the field is an additive change of that contract too.
        this.changeset(
          "rehearsal-compatible",
          {
            [`${SCOPE}/spec`]: compatible,
            [`${SCOPE}/sender`]: compatibleFor(this.version(`${SCOPE}/sender`)),
          },
          "New optional field `color`.",
        );
      },
    );
    await this.updateConsumer(consumer, "release 2", (before, after) => {
      if (after[`${SCOPE}/spec`] === before[`${SCOPE}/spec`]) {
        throw new Error(
          `npm update kept ${SCOPE}/spec at ${before[`${SCOPE}/spec`]}; expected ${this.version(`${SCOPE}/spec`)}`,
        );
      }
    });
    await this.step(
      "the consumer type-checks against the new contract types (uses the new optional field)",
      `check that ${SCOPE}/spec's dist has the regenerated types (spec gen ran before build)`,
      () => {
        writeFileSync(
          join(consumer, "color.ts"),
          'import type { NewPlant } from "@plant-store/spec";\nexport const plant: NewPlant = { id: 1, name: "Fern", color: "green" };\n',
        );
        writeJson(join(consumer, "tsconfig.update.json"), {
          extends: "./tsconfig.json",
          files: ["consumer.ts", "color.ts"],
        });
        return this.tsc(consumer, "tsconfig.update.json");
      },
      `${SCOPE}/spec`,
    );

    // Release 3: a breaking contract change (ids must be positive: a narrowed type) with a major changeset.
    const specCompatible = this.version(`${SCOPE}/spec`);
    await this.release(
      3,
      "a breaking contract change with a major changeset",
      async () => {
        await this.editContract((yaml) =>
          yaml.replace(
            /(\n {12}id:\n {14}description: Identification number of the plant\.\n {14}type: integer\n {14}format: int64\n)/,
            "$1              minimum: 1\n",
          ),
        );
        // Only the spec's own changeset: the contract gate must ask the same of every package that depends on it.
        this.changeset(
          "rehearsal-breaking",
          { [`${SCOPE}/spec`]: "major" },
          "BREAKING: ids must be positive.",
        );
      },
      true,
    );
    const specMajor = this.version(`${SCOPE}/spec`);
    await this.updateConsumer(consumer, "release 3", (before3, after) => {
      if (after[`${SCOPE}/spec`] !== specCompatible) {
        throw new Error(
          `npm update moved ${SCOPE}/spec from ${specCompatible} to ${after[`${SCOPE}/spec`]}: ^${specCompatible} must not take ${specMajor}`,
        );
      }
      // The gate made every dependent of the spec release as breaking: none reaches the consumer's ^ ranges, and
      // so nothing it installed carries the new contract.
      if (this.gateDependents.size === 0)
        throw new Error("the contract gate named no dependents of the spec's major");
      for (const name of this.gateDependents) {
        if (after[name] !== before3[name]) {
          throw new Error(
            `npm update moved ${name} from ${before3[name]} to ${after[name]}: it depends on ${SCOPE}/spec@${specMajor}, which ^${before3[name]} must not bring`,
          );
        }
      }
      for (const name of this.packageNames()) {
        const nested = join(consumer, "node_modules", name, "node_modules", SCOPE, "spec", "package.json");
        if (existsSync(nested)) {
          throw new Error(
            `${name}@${after[name]} brings ${SCOPE}/spec@${readJson<Manifest>(nested).version} along, beside the consumer's ${specCompatible}`,
          );
        }
      }
    });
    await this.step(
      `npm view: ${SCOPE}/spec has the three releases and latest is the new major`,
      "check `changeset publish` output above: each release must publish its version under `latest`",
      async () => {
        const view = await this.view(`${SCOPE}/spec`);
        const expected = this.published[`${SCOPE}/spec`] ?? [];
        this.log(`  versions ${view.versions.join(", ")}; dist-tags ${JSON.stringify(view["dist-tags"])}`);
        for (const v of expected)
          if (!view.versions.includes(v)) throw new Error(`${v} is not on the registry`);
        if (new Set(expected).size < 3)
          throw new Error(`expected three releases, published ${expected.join(", ")}`);
        if (view["dist-tags"].latest !== specMajor)
          throw new Error(`latest is ${view["dist-tags"].latest}, not ${specMajor}`);
      },
      `${SCOPE}/spec`,
    );

    // A prerelease channel: `changeset pre enter next` publishes under `next` and leaves `latest` alone.
    await this.release(4, "a prerelease: `changeset pre enter next`", async () => {
      await this.changesetCli(["pre", "enter", "next"]);
      this.changeset("rehearsal-prerelease", { [`${SCOPE}/spec`]: "patch" }, "A prerelease fix.");
    });
    await this.step(
      "npm view: the prerelease is under `next`, `latest` is unchanged, and `npm update` ignores it",
      "publish prereleases only in pre mode (`changeset pre enter <tag>`), which publishes under that tag",
      async () => {
        const view = await this.view(`${SCOPE}/spec`);
        const pre = this.version(`${SCOPE}/spec`);
        this.log(`  dist-tags ${JSON.stringify(view["dist-tags"])}`);
        if (!pre.includes("-next.")) throw new Error(`the prerelease version is ${pre}`);
        if (view["dist-tags"].next !== pre) throw new Error(`next is ${view["dist-tags"].next}, not ${pre}`);
        if (view["dist-tags"].latest !== specMajor)
          throw new Error(`latest moved to ${view["dist-tags"].latest}`);
      },
      `${SCOPE}/spec`,
    );
    await this.updateConsumer(consumer, "the prerelease", (before, after) => {
      if (after[`${SCOPE}/spec`] !== before[`${SCOPE}/spec`]) {
        throw new Error(`npm update moved ${SCOPE}/spec to ${after[`${SCOPE}/spec`]}`);
      }
    });

    // Each package alone, from `latest`: the CLI and the receiver first (the bins users install most).
    for (const name of new Set([`${SCOPE}/cli`, `${SCOPE}/receiver`, ...this.packageNames()])) {
      await this.installAlone(name);
    }
    return this.finish();
  }

  /**
   * The caller's registry (`--registry`): a throwaway one by its URL, answering, and one npm has a login for (the
   * rehearsal reads no token; npm sends the one `npm adduser --registry <url>` stored). It is never stopped.
   */
  private async reachCallersRegistry(raw: string): Promise<Target> {
    const title = `reach the registry at ${raw} and npm's login for it`;
    return this.step(title, "see below", async () => {
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
      let user: string;
      try {
        user = (
          await exec("npm", ["whoami", "--registry", url], {
            cwd: tmpdir(),
            env: this.env(),
            timeout: 60_000,
            stdout: true,
          })
        ).trim();
      } catch (error) {
        throw new RehearsalError(
          title,
          undefined,
          `log in to it first: npm adduser --registry ${url}`,
          `npm has no login for ${url}:\n${(error as Error).message}`,
        );
      }
      this.log(
        `  ${url} answers; npm publishes to it as ${user}; ${SCOPE}/* is installed from it, every other package from the real registry; the rehearsal never stops it`,
      );
      return { url, npmrc: `${SCOPE}:registry=${url}\n`, stop: async () => {} };
    });
  }

  private async finish(): Promise<RehearsalResult> {
    const distTags: Record<string, Record<string, string>> = {};
    await this.step(
      "the registry's documents: every published version and dist-tag",
      "see the step above for the package whose versions are missing",
      async () => {
        const names = this.packageNames();
        const views = await Promise.all(names.map((name) => this.packument(name)));
        names.forEach((name, i) => {
          const view = views[i] as Awaited<ReturnType<Rehearsal["packument"]>>;
          distTags[name] = view["dist-tags"];
          this.log(`  ${name}: ${view.versions.join(", ")}  ${JSON.stringify(view["dist-tags"])}`);
        });
      },
    );
    const seconds = (Date.now() - this.started) / 1000;
    this.log(`release rehearsal (${this.quick ? "quick" : "full"}) passed in ${seconds.toFixed(0)} s`);
    return {
      published: this.published,
      distTags,
      seconds,
      registry: this.registry.url,
      temporary: [...this.temporary],
    };
  }

  private packageNames(): string[] {
    return publishablePackages(this.copy).map((p) => p.manifest.name);
  }

  private version(name: string): string {
    return freshVersions(this.copy)[name] as string;
  }

  private pendingChangesets(): string[] {
    return readdirSync(join(this.copy, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
  }

  private changeset(file: string, bumps: Record<string, string>, summary: string) {
    const header = Object.entries(bumps)
      .map(([name, bump]) => `"${name}": ${bump}`)
      .join("\n");
    writeFileSync(join(this.copy, ".changeset", `${file}.md`), `---\n${header}\n---\n\n${summary}\n`);
  }

  /** Edits spec/openapi.yaml and regenerates what is generated from it, as a contributor does before committing. */
  private async editContract(edit: (yaml: string) => string) {
    const file = join(this.copy, "spec", "openapi.yaml");
    const before = readFileSync(file, "utf8");
    const after = edit(before);
    if (after === before) throw new Error("the rehearsal's contract edit did not apply to spec/openapi.yaml");
    writeFileSync(file, after);
    const [pnpm, prefix] = pnpmCommand(this.copy);
    await exec(pnpm, [...prefix, "-r", "run", "gen"], { cwd: this.copy, env: this.env({ CI: "true" }) });
    this.log(
      "  pnpm -r run gen: the spec's generated types and the sender's admin API document follow the edit",
    );
  }

  private async changesetCli(args: string[]) {
    return exec(join(this.copy, "node_modules", ".bin", "changeset"), args, {
      cwd: this.copy,
      env: this.env({ CI: "true" }),
    });
  }

  private async git(args: string[]) {
    return exec("git", [...GIT, ...args], { cwd: this.copy });
  }

  /** The registry's document for a package, read over HTTP (npm's own start-up costs seconds per call). */
  private async packument(
    name: string,
  ): Promise<{ versions: string[]; "dist-tags": Record<string, string> }> {
    const response = await fetch(`${this.registry.url}${name.replace("/", "%2f")}`);
    if (response.status === 404) return { versions: [], "dist-tags": {} };
    if (!response.ok) throw new Error(`the registry answered ${response.status} for ${name}`);
    const body = (await response.json()) as {
      versions: Record<string, unknown>;
      "dist-tags": Record<string, string>;
    };
    return { versions: Object.keys(body.versions), "dist-tags": body["dist-tags"] };
  }

  private async view(name: string): Promise<{ versions: string[]; "dist-tags": Record<string, string> }> {
    const out = await exec("npm", ["view", name, "versions", "dist-tags", "--json"], {
      cwd: tmpdir(),
      env: this.env({ npm_config_prefer_online: "true" }),
      timeout: 60_000,
      stdout: true,
    });
    const json = JSON.parse(out) as { versions: string[] | string; "dist-tags": Record<string, string> };
    return { versions: ([] as string[]).concat(json.versions), "dist-tags": json["dist-tags"] };
  }

  private async prepareCopy() {
    this.copy = await this.step(
      "copy the repository to a temporary directory (tracked and new files; the working tree is not touched)",
      "run the rehearsal from a git checkout of this repository",
      async () => {
        // Quick: the copy uses this checkout's install, as it uses its build; the full rehearsal installs it.
        const copy = await copyWorkspace(
          this.root,
          join(this.base, "copy"),
          this.quick ? { install: ROOT } : {},
        );
        this.temporary.push(copy);
        this.cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
        this.log(`  ${copy}`);
        return copy;
      },
    );
    await this.step(
      `prepare the copy: provenance off${this.quick ? "" : ", git commit, pnpm install"}`,
      "run `pnpm install` in the repository first (the copy installs from pnpm's store, offline where it can)",
      async () => {
        for (const { dir } of publishablePackages(this.copy)) {
          const file = join(dir, "package.json");
          const raw = readJson<Manifest>(file);
          if (raw.publishConfig?.provenance) {
            // npm applies publishConfig over env and .npmrc, so a manifest setting is the only switch.
            raw.publishConfig.provenance = false;
            writeJson(file, raw);
          }
        }
        this.log(
          "  provenance switched OFF in the copy's publishConfig: there is no CI identity (OIDC) here to sign it; release.yml publishes with provenance",
        );
        if (this.quick) return;
        // The full rehearsal commits each release, as the release workflow's version pull request does.
        await exec("git", ["init", "-q", "-b", "main"], { cwd: this.copy });
        await this.git(["add", "-A"]);
        await this.git(["commit", "-qm", "rehearsal copy"]);
        const pnpm = join(ROOT, "node_modules", ".bin", "pnpm");
        await exec(pnpm, ["install", "--frozen-lockfile", "--prefer-offline", "--ignore-scripts"], {
          cwd: this.copy,
          env: this.env({ CI: "true" }),
        });
      },
    );
  }

  /** One release on the copy: `prepare` writes its changesets, then version, commit, build, publish. */
  /**
   * One release on the copy: `prepare` writes its changesets; the full rehearsal then runs the contract gate (as
   * `npm test` does before a merge) and the release workflow's version step, `pnpm version-packages`; the quick one
   * runs `changeset version`. Then build, publish.
   */
  private async release(
    n: number,
    what: string,
    prepare: () => Promise<void> | void,
    dependentsExpected = false,
  ) {
    await this.publishRelease(n, await this.prepareRelease(n, what, prepare, dependentsExpected));
  }

  /**
   * A release up to its publish, which needs no registry: changesets, version, build, the import check, and in
   * the quick rehearsal the packing (its tarballs are returned).
   */
  private async prepareRelease(
    n: number,
    what: string,
    prepare: () => Promise<void> | void,
    dependentsExpected = false,
  ): Promise<Record<string, string> | undefined> {
    this.log(`— release ${n}: ${what}`);
    const before = freshVersions(this.copy);
    await this.step(`release ${n}: changesets`, "see the message above", prepare);
    if (!this.quick) await this.contractGate(n, dependentsExpected);
    await this.step(
      `release ${n}: ${this.quick ? "changeset version" : "pnpm version-packages (changeset version, the contracts' info.version and baselines, gen)"}`,
      "fix the changeset files named in the output (`pnpm changeset status` shows what would be released)",
      async () => {
        if (this.pendingChangesets().length > 0) {
          if (this.quick) await this.changesetCli(["version"]);
          else
            await exec("npm", ["run", "version-packages"], { cwd: this.copy, env: this.env({ CI: "true" }) });
        }
        if (!this.quick) {
          await this.git(["add", "-A"]);
          await this.git(["commit", "-qm", `release ${n}`, "--allow-empty"]);
        }
        const after = freshVersions(this.copy);
        const bumped = Object.keys(after).filter((name) => after[name] !== before[name]);
        this.log(
          `  ${bumped.length === 0 ? "no version changes" : bumped.map((name) => `${name} ${before[name]} → ${after[name]}`).join("\n  ")}`,
        );
      },
    );
    if (!this.quick) {
      await this.step(
        `release ${n}: turbo run build on the copy`,
        "the failing package is named in turbo's output: build it in the repository (`pnpm --filter <package> build`)",
        () =>
          exec(
            join(this.copy, "node_modules", ".bin", "turbo"),
            ["run", "build", "--output-logs=errors-only"],
            {
              cwd: this.copy,
              env: this.env({ CI: "true" }),
            },
          ),
      );
    } else {
      await this.step(
        `release ${n}: build (quick: the working tree's build, made by turbo before this suite)`,
        "run `pnpm build` first (the quick rehearsal reuses the working tree's dist/)",
        () => {
          for (const { dir, manifest } of publishablePackages(this.root)) {
            if (!existsSync(join(dir, "dist"))) throw new Error(`${manifest.name} has no dist/`);
            cpSync(join(dir, "dist"), join(this.copy, relative(this.root, dir), "dist"), { recursive: true });
          }
        },
      );
    }
    await this.step(
      `release ${n}: every import of the built packages is a declared dependency`,
      "add each package named below to that package's dependencies (`pnpm --filter <package> add <dependency>`)",
      () => {
        const problems = publishablePackages(this.copy).flatMap(({ dir, manifest }) =>
          undeclaredImports(dir, manifest).map(
            (m) => `${manifest.name} imports \`${m.imported}\` (${m.file}) but does not depend on it`,
          ),
        );
        if (problems.length > 0) {
          throw new RehearsalError(
            `release ${n}: every import of the built packages is a declared dependency`,
            problems[0]?.split(" ")[0],
            "add each dependency named below to that package's dependencies (`pnpm --filter <package> add <dependency>`)",
            [...new Set(problems)].join("\n"),
          );
        }
      },
    );
    if (!this.quick) return undefined;
    return this.step(
      `release ${n}: pnpm pack of every public package on the copy (workspace: ranges become the released versions)`,
      "run `pnpm --filter <package> pack` in the repository and read its error",
      () => packAll(this.temp("packs"), this.copy),
    );
  }

  /** Publishes what {@link Rehearsal.prepareRelease} made and checks that the registry serves it. */
  private async publishRelease(n: number, tarballs: Record<string, string> | undefined) {
    // The registry's scope mapping (with the publishing user's token for the rehearsal's own registry), as the
    // release workflow's setup-node writes it.
    writeFileSync(join(this.copy, ".npmrc"), this.registry.npmrc);
    const output = tarballs
      ? await this.publishTarballs(n, tarballs)
      : await this.step(
          `release ${n}: pnpm release (turbo build + changeset publish, as release.yml) to the throwaway registry`,
          "read the publish output above: a failed build names its package; a refused upload names the package and the registry's answer",
          () => exec("npm", ["run", "release"], { cwd: this.copy, env: this.env({ CI: "true" }) }),
        );
    await this.step(
      `release ${n}: the registry serves every version this release published`,
      "a package missing here was not published: see `changeset publish`'s output",
      async () => {
        const versions = freshVersions(this.copy);
        const fresh = Object.keys(versions).filter(
          (name) => !this.published[name]?.includes(versions[name] as string),
        );
        for (const name of fresh) {
          const view = await this.packument(name);
          if (!view.versions.includes(versions[name] as string)) {
            throw new RehearsalError(
              `release ${n}: publish`,
              name,
              "read `changeset publish`'s output below",
              `${name}@${versions[name]} is not on the registry (it has ${view.versions.join(", ") || "nothing"})\n${output.slice(-3000)}`,
            );
          }
          this.published[name] = [...(this.published[name] ?? []), versions[name] as string];
          this.log(`  ${name}@${versions[name]}`);
        }
        if (fresh.length === 0) throw new Error("this release published nothing new");
      },
    );
  }

  /**
   * The quick release's publish of the tarballs `pnpm pack` made in one process on the copy (it rewrites the
   * `workspace:` ranges, as `pnpm publish` does under `changeset publish`): one `npm publish` per tarball, all at
   * once, under the dist-tag `changeset publish` would choose. The full rehearsal publishes with `pnpm release`.
   */
  private async publishTarballs(n: number, tarballs: Record<string, string>): Promise<string> {
    const pre = join(this.copy, ".changeset", "pre.json");
    const tag = existsSync(pre) ? readJson<{ mode: string; tag: string }>(pre) : undefined;
    const distTag = tag?.mode === "pre" ? tag.tag : "latest";
    const outputs = await this.step(
      `release ${n}: npm publish of every tarball, in parallel, under \`${distTag}\` to the throwaway registry`,
      "read npm's answer below: a refused upload names the package and the registry's reason",
      () =>
        Promise.all(
          Object.entries(tarballs).map(async ([name, tarball]) => {
            try {
              return await exec("npm", ["publish", tarball, "--tag", distTag, "--access", "public"], {
                cwd: this.copy,
                env: this.env({ CI: "true" }),
              });
            } catch (error) {
              throw new RehearsalError(
                `release ${n}: npm publish`,
                name,
                "read npm's answer below: a refused upload names the registry's reason",
                (error as Error).message,
              );
            }
          }),
        ),
    );
    return outputs.join("\n");
  }

  /**
   * The copy's contract gate (`pnpm contract:check`, which `npm test` runs before a merge), read as values. When a
   * package is about to take a breaking release and the gate names dependents that would be released as patches,
   * this writes the changeset the gate asks for (each dependent with the bump shown), as a contributor would, and
   * checks again: the release goes ahead only once the gate passes.
   */
  private async contractGate(n: number, dependentsExpected: boolean) {
    const url = (file: string) => pathToFileURL(join(this.copy, "contracts", "src", file)).href;
    const { checkContracts } = (await import(url("check.mjs"))) as {
      checkContracts(root: string): Promise<Gate>;
    };
    const { formatReport } = (await import(url("report.mjs"))) as { formatReport(result: Gate): string };
    await this.step(
      `release ${n}: the contract gate (pnpm contract:check) ${dependentsExpected ? "refuses dependents released as patches, then passes" : "passes"}`,
      "read the gate's report below: it names each change and the changeset it needs",
      async () => {
        let result = await checkContracts(this.copy);
        if (dependentsExpected !== result.dependents.length > 0) {
          throw new Error(
            dependentsExpected
              ? `the gate let a breaking release through whose dependents would be released as patches:\n${formatReport(result)}`
              : `the gate asks breaking releases of dependents here:\n${formatReport(result)}`,
          );
        }
        if (result.dependents.length > 0) {
          for (const d of result.dependents) {
            this.log(`  the gate: ${d.name} ${d.version} needs ${d.needed} (${d.through.join(" → ")})`);
            this.gateDependents.add(d.name);
          }
          this.changeset(
            `rehearsal-dependents-${n}`,
            Object.fromEntries(result.dependents.map((d) => [d.name, d.needed])),
            "Built on the new major of the contract: its types and what it accepts changed.",
          );
          result = await checkContracts(this.copy);
        }
        if (!result.ok) throw new Error(formatReport(result));
      },
    );
  }

  /** A project outside the workspace, with `.npmrc` mapping only our scope to the throwaway registry. */
  private consumerProject(dir: string, dependencies: Record<string, string>, dev: boolean) {
    mkdirSync(dir, { recursive: true });
    writeJson(join(dir, "package.json"), {
      name: "plant-store-rehearsal-consumer",
      private: true,
      type: "module",
      dependencies,
      ...(dev ? { devDependencies: { typescript: "5.9.3", "@types/node": "20.19.43" } } : {}),
    });
    writeFileSync(join(dir, ".npmrc"), `${SCOPE}:registry=${this.registry.url}\n`);
  }

  private npmInstall(dir: string, args: string[] = []) {
    return exec("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...args], {
      cwd: dir,
      env: this.env({ npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" }),
      timeout: 900_000,
    });
  }

  private npmExec(dir: string, args: string[]) {
    return exec("npx", ["--no-install", ...args], {
      cwd: dir,
      env: this.env(),
      timeout: 120_000,
      stdout: true,
    });
  }

  private installed(dir: string): Record<string, string> {
    return Object.fromEntries(
      this.packageNames()
        .filter((name) => existsSync(join(dir, "node_modules", name, "package.json")))
        .map((name) => [name, readJson<Manifest>(join(dir, "node_modules", name, "package.json")).version]),
    );
  }

  private async installConsumer(): Promise<string> {
    const dir = join(this.temp("consumer"), "app");
    const ranges = Object.fromEntries(Object.entries(freshVersions(this.copy)).map(([n, v]) => [n, `^${v}`]));
    await this.step(
      `consumer: npm install every public package by range (${Object.values(ranges)[0]} …) from the registry`,
      "read npm's error: an unresolvable range names the dependent package; an ETARGET means the version was not published",
      async () => {
        this.consumerProject(dir, ranges, true);
        for (const file of ["consumer.ts", "tsconfig.json", "smoke.mjs"]) {
          cpSync(join(CONSUMER_FIXTURES, file), join(dir, file));
        }
        this.log(`  ${dir}`);
        if (this.quick) {
          // npm's cache first for the public packages (ours are never cached: the rehearsal's registry answers
          // no-store; a caller's may not, so there npm revalidates as usual), and install scripts afterwards, where
          // a native build this machine already made can stand in for one.
          await this.npmInstall(dir, [
            ...(this.callersRegistry ? [] : ["--prefer-offline"]),
            "--ignore-scripts",
          ]);
          await this.runInstallScripts(dir);
        } else {
          await this.npmInstall(dir);
        }
        const installed = this.installed(dir);
        for (const [name, version] of Object.entries(freshVersions(this.copy))) {
          if (installed[name] !== version)
            throw new Error(`${name}: installed ${installed[name]}, published ${version}`);
        }
      },
    );
    return dir;
  }

  /**
   * What `npm install` would have built after `--ignore-scripts`: better-sqlite3 gets the binary the workspace's
   * install compiled for the same version and this Node (what its prebuild-install would download where GitHub is
   * reachable: it is not here, so it compiles for a minute); every other package with install scripts or a
   * binding.gyp is rebuilt by `npm rebuild`, scripts and all.
   */
  private async runInstallScripts(dir: string) {
    const workspace = createRequire(join(ROOT, "packages", "store", "package.json"));
    const rebuild: string[] = [];
    for (const pkg of packagesToBuild(join(dir, "node_modules"))) {
      if (pkg.name === "better-sqlite3") {
        const ours = dirname(workspace.resolve("better-sqlite3/package.json"));
        const binary = join("build", "Release", "better_sqlite3.node");
        if (
          readJson<Manifest>(join(ours, "package.json")).version === pkg.version &&
          existsSync(join(ours, binary))
        ) {
          mkdirSync(join(pkg.dir, "build", "Release"), { recursive: true });
          cpSync(join(ours, binary), join(pkg.dir, binary));
          this.log(
            `  better-sqlite3@${pkg.version}: the workspace's native build of the same version for Node ${process.versions.node} (ABI ${process.versions.modules}), not compiled again`,
          );
          continue;
        }
      }
      rebuild.push(pkg.name);
    }
    if (rebuild.length > 0) {
      this.log(`  npm rebuild ${rebuild.join(" ")}`);
      await exec("npm", ["rebuild", ...rebuild], {
        cwd: dir,
        env: this.env({ npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" }),
        timeout: 900_000,
      });
    }
  }

  private async checkConsumer(dir: string, label: string) {
    const names = this.packageNames();
    // The type-check (one busy core for seconds) runs beside the run-time checks (mostly process starts).
    await Promise.all([
      this.step(
        `${label}: tsc --noEmit of a strict consumer (contract types, core's sign/verify, store, adapters)`,
        "the .d.ts files of the package named in tsc's error do not match what they export",
        () => this.tsc(dir, "tsconfig.json"),
      ),
      (async () => {
        await this.step(
          `${label}: import every public entry of every package; sign → verify; SQLite store`,
          "the package named in the error is missing a file in `files` or a dependency",
          () => exec(process.execPath, ["smoke.mjs", JSON.stringify(names)], { cwd: dir, env: this.env() }),
        );
        await this.checkCli(dir, label);
        await this.checkBins(dir, label, true);
      })(),
    ]);
  }

  /**
   * The consumer's own TypeScript (its devDependency), without npx's start-up. Incremental, with its build info
   * kept in the release cache between runs: files whose content is unchanged since a passing run (the public
   * packages' .d.ts, mostly) are not checked again; every changed file and whatever depends on it is.
   */
  private async tsc(dir: string, project: string) {
    const info = `.tsbuildinfo-${project.replace(/\.json$/, "")}`;
    const kept = join(CACHE, "consumer-tsc", info);
    if (existsSync(kept)) cpSync(kept, join(dir, info));
    const tsc = join(dir, "node_modules", "typescript", "bin", "tsc");
    const out = await exec(
      process.execPath,
      [tsc, "-p", project, "--incremental", "--tsBuildInfoFile", info],
      {
        cwd: dir,
        env: this.env(),
        timeout: 300_000,
        stdout: true,
      },
    );
    // Atomically: a rehearsal running beside this one may be reading it.
    replaceFile(join(dir, info), kept);
    return out;
  }

  private async checkCli(dir: string, label: string, expected = this.version(`${SCOPE}/cli`)) {
    const cli = `${SCOPE}/cli`;
    await this.step(
      `${label}: npx plant-store --version prints the published version`,
      "check the CLI's bin entry and that dist/bin.js starts with a shebang",
      async () => {
        const out = (await this.npmExec(dir, ["plant-store", "--version"])).trim();
        if (out !== expected) throw new Error(`printed ${JSON.stringify(out)}, expected ${expected}`);
      },
      cli,
    );
  }

  /** Starts a bin of the consumer's node_modules with `--port 0` and waits for its "listening" log line. */
  private async startBin(
    dir: string,
    bin: string,
    args: string[],
  ): Promise<{ url: string; stop(): Promise<number | null> }> {
    const child = spawn(join(dir, "node_modules", ".bin", bin), ["--port", "0", ...args], {
      cwd: dir,
      env: this.env(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.children.add(child);
    let output = "";
    child.stdout?.on("data", (c) => (output += c));
    child.stderr?.on("data", (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${bin} did not log "listening" within 30 s:\n${output}`)),
        30_000,
      );
      const check = () => {
        const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"listening"/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        resolve(match[1] as string);
      };
      child.stdout?.on("data", check);
      child.stderr?.on("data", check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${bin} exited with ${code} before listening:\n${output}`));
      });
    });
    return {
      url,
      stop: async () => {
        this.killGroup(child, "SIGTERM");
        const code = await exited;
        this.children.delete(child);
        if (code !== 0) throw new Error(`${bin} exited with ${code} on SIGTERM:\n${output}`);
        return code;
      },
    };
  }

  private async checkBins(dir: string, label: string, withCli: boolean) {
    const [token, admin, secret] = (await Promise.all([
      this.cliIn(dir, withCli, ["token", "create", "--json"]),
      this.cliIn(dir, withCli, ["token", "create", "--json"]),
      this.cliIn(dir, withCli, ["secret", "create", "--json"]),
    ]).then((outs) => outs.map((out) => JSON.parse(out)))) as [
      { token: string },
      { token: string },
      { secret: string },
    ];
    const receiverPkg = `${SCOPE}/receiver`;
    // The two apps start side by side.
    const receiverStarted = this.step(
      `${label}: plant-store-receiver starts and answers /healthz`,
      "run the receiver bin by hand in a project that installed only it, and read its error",
      async () => {
        const app = await this.startBin(dir, "plant-store-receiver", [
          "--token",
          token.token,
          "--admin-token",
          admin.token,
          "--secret",
          secret.secret,
          "--db",
          ":memory:",
          "--log-level",
          "info",
        ]);
        const health = await fetch(`${app.url}/healthz`);
        if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
        return app;
      },
      receiverPkg,
    );
    const senderAnswered = this.step(
      `${label}: plant-store-sender starts and answers /healthz`,
      "run the sender bin by hand in a project that installed only it, and read its error",
      async () => {
        const app = await this.startBin(dir, "plant-store-sender", [
          "--admin-token",
          admin.token,
          "--db",
          ":memory:",
        ]);
        const health = await fetch(`${app.url}/healthz`);
        if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
        await app.stop();
      },
      `${SCOPE}/sender`,
    );
    const [receiver] = await Promise.all([receiverStarted, senderAnswered]);
    await this.step(
      `${label}: one signed New Plant goes CLI → receiver and is stored`,
      "run `npx plant-store send <receiver>/plant/webhook --token … --secret …` by hand and read both sides' errors",
      async () => {
        const sent = JSON.parse(
          await this.cliIn(dir, withCli, [
            "send",
            `${receiver.url}/plant/webhook`,
            "--token",
            token.token,
            "--secret",
            secret.secret,
            "--name",
            "Rehearsal Fern",
            "--json",
          ]),
        ) as { status: number };
        if (sent.status !== 200) throw new Error(`the receiver answered ${sent.status}`);
        const events = (await (
          await fetch(`${receiver.url}/events`, { headers: { authorization: `Bearer ${admin.token}` } })
        ).json()) as { data: { body?: unknown }[] };
        if (events.data.length !== 1)
          throw new Error(`the receiver holds ${events.data.length} events, not 1`);
        await receiver.stop();
      },
      `${SCOPE}/cli`,
    );
  }

  /**
   * `plant-store …`: the consumer's installed bin (`npx plant-store --version` proves npx finds it; npx's own start
   * is not repeated for every call), or the copy's CLI for consumers that did not install it.
   */
  private cliIn(dir: string, withCli: boolean, args: string[]) {
    return withCli
      ? exec(join(dir, "node_modules", ".bin", "plant-store"), args, {
          cwd: dir,
          env: this.env(),
          stdout: true,
        })
      : exec(process.execPath, [join(this.copy, "apps", "cli", "dist", "bin.js"), ...args], { cwd: dir });
  }

  /** A fresh project that installs only `name` by range: its dependency tree alone must work. */
  private async installAlone(name: string) {
    const dir = join(this.temp("alone"), "app");
    const manifest = publishablePackages(this.copy).find((p) => p.manifest.name === name)
      ?.manifest as Manifest;
    // By range from `latest` (the copy may hold a prerelease by now).
    const latest = (await this.packument(name))["dist-tags"].latest as string;
    await this.step(
      `${name} alone: npm install ${name}@^${latest} in an empty project, then npm ls`,
      `declare every package ${name} needs in its dependencies (workspace:^ for ours)`,
      async () => {
        this.consumerProject(dir, { [name]: `^${latest}` }, false);
        await this.npmInstall(dir);
        await exec("npm", ["ls", "--all"], { cwd: dir, env: this.env(), timeout: 60_000 });
      },
      name,
    );
    await this.step(
      `${name} alone: imports every public entry${manifest.bin ? ", bins start" : ""}`,
      `the file or dependency named in the error is missing from ${name}'s published package`,
      async () => {
        cpSync(join(CONSUMER_FIXTURES, "smoke.mjs"), join(dir, "smoke.mjs"));
        await exec(process.execPath, ["smoke.mjs", JSON.stringify([name])], { cwd: dir, env: this.env() });
        if (name === `${SCOPE}/cli`) await this.checkCli(dir, `${name} alone`, latest);
        if (name === `${SCOPE}/receiver` || name === `${SCOPE}/sender`) {
          const bin = Object.keys(manifest.bin ?? {})[0] as string;
          const token = JSON.parse(await this.cliIn(dir, false, ["token", "create", "--json"])) as {
            token: string;
          };
          const args = name.endsWith("receiver") ? ["--token", token.token] : ["--admin-token", token.token];
          const app = await this.startBin(dir, bin, [...args, "--db", ":memory:"]);
          const health = await fetch(`${app.url}/healthz`);
          if (health.status !== 200) throw new Error(`${bin} /healthz answered ${health.status}`);
          await app.stop();
        }
      },
      name,
    );
  }

  private async updateConsumer(
    dir: string,
    label: string,
    check: (before: Record<string, string>, after: Record<string, string>) => void,
  ) {
    await this.step(
      `consumer: npm update after ${label}`,
      "a range that takes a breaking release, or misses a compatible one, means the wrong bump in a changeset",
      async () => {
        const before = this.installed(dir);
        await exec("npm", ["update", "--no-audit", "--no-fund", "--loglevel=error"], {
          cwd: dir,
          env: this.env({ npm_config_prefer_online: "true" }),
          timeout: 600_000,
        });
        const after = this.installed(dir);
        const moved = Object.keys(after).filter((n) => after[n] !== before[n]);
        this.log(
          `  ${moved.length === 0 ? "nothing moved" : moved.map((n) => `${n} ${before[n]} → ${after[n]}`).join("\n  ")}`,
        );
        check(before, after);
        await this.tsc(dir, "tsconfig.json");
        await exec(process.execPath, ["smoke.mjs", JSON.stringify(this.packageNames())], {
          cwd: dir,
          env: this.env(),
        });
      },
    );
  }
}
