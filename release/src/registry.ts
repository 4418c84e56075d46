import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CACHE, fillOnce } from "./cache.js";
import { ROOT } from "./workspace.js";

const run = promisify(execFile);

/** The tool directory: Verdaccio pinned with its own npm lockfile, outside the pnpm workspace. */
export const REGISTRY_TOOL = join(ROOT, "release", "rehearsal");
/**
 * What the cached install is keyed by. serve.mjs runs from the repository (editing it installs nothing) and loads
 * Verdaccio from the cached install; nothing is written into an install once it is in place.
 */
const TOOL_FILES = ["package.json", "package-lock.json"] as const;
/** The cache layout: part of the key, so that installs made before installs were atomic are never used. */
const LAYOUT = "atomic-1";

/** The scope that the throwaway registry keeps to itself; every other name is proxied to the real registry. */
export const SCOPE = "@plant-store";

/** A running throwaway registry. */
export interface Registry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** Verdaccio's process id (also its process group's: `stop` ends the group). */
  pid: number;
  /** A token of the registry's one user, who may publish {@link SCOPE}. */
  token: string;
  /** The `.npmrc` lines that map only {@link SCOPE} to this registry, with the token. */
  npmrc: string;
  /** Where Verdaccio keeps the published packages (inside a temporary directory that `stop` removes). */
  storage: string;
  /** What Verdaccio printed, for error messages. */
  log(): string;
  /** Stops Verdaccio (its whole process group) and removes its temporary directory; safe to call twice. */
  stop(): Promise<void>;
}

/** Where the registry tool is installed and how the install may be stopped. */
export interface InstallOptions {
  /** The release cache (default {@link CACHE}; `PLANT_STORE_RELEASE_CACHE` sets that). */
  cache?: string;
  /** Aborting it stops an install that is under way. */
  signal?: AbortSignal;
}

/**
 * Installs the pinned Verdaccio once (`npm ci` of `release/rehearsal/package-lock.json`) into the release cache,
 * keyed by the tool files' hash, atomically ({@link fillOnce}): rehearsals running at once on one machine each
 * get a complete install, the same one. Returns the install's directory (its package.json and node_modules).
 *
 * @example
 * ```ts
 * const dir = await installRegistryTool(); // "~/.cache/plant-store-release/registry/3f2a…"
 * ```
 */
export async function installRegistryTool({ cache = CACHE, signal }: InstallOptions = {}): Promise<string> {
  const hash = createHash("sha256").update(LAYOUT);
  for (const file of TOOL_FILES) hash.update(readFileSync(join(REGISTRY_TOOL, file)));
  return fillOnce(join(cache, "registry", hash.digest("hex").slice(0, 16)), async (staging) => {
    for (const file of TOOL_FILES) copyFileSync(join(REGISTRY_TOOL, file), join(staging, file));
    // No install scripts: the only one in the tree is core-js's postinstall banner.
    await run(
      "npm",
      ["ci", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline", "--ignore-scripts"],
      {
        cwd: staging,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(signal ? { signal } : {}),
      },
    );
  });
}

/** Where and how a throwaway registry runs. */
export interface RegistryOptions {
  /** An empty directory for its config and storage (default: a new temporary directory); `stop` removes it. */
  home?: string;
  /**
   * A directory Verdaccio removes itself if the process that started it ends without stopping it (its stdin
   * closes): the caller's temporary root, so that even a killed rehearsal leaves nothing behind. Default: `home`.
   */
  orphanCleanup?: string;
  /** Aborting it stops a start that is still under way (installing or waiting for the port). */
  signal?: AbortSignal;
  /** The release cache Verdaccio is installed into (default {@link CACHE}). */
  cache?: string;
}

/** The registry the machine's npm uses (a mirror where one is configured): Verdaccio's uplink. */
export async function upstreamRegistry(): Promise<string> {
  const { stdout } = await run("npm", ["config", "get", "registry"], { cwd: tmpdir() });
  const url = stdout.trim() || "https://registry.npmjs.org/";
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * Installs the registry tool if needed and writes Verdaccio's config for a registry living in `home`: {@link SCOPE}
 * is local only (never proxied, so nothing real can shadow or receive it), every other package is proxied to the
 * real registry. Returns the command that serves it (`node serve.mjs <install> <config> <orphanCleanup>`: it
 * prints `{"port":<n>}` once it listens, and ends, removing `orphanCleanup`, when its stdin closes).
 *
 * @example
 * ```ts
 * const { args } = await registryCommand("/tmp/r/registry", "/tmp/r");
 * spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
 * ```
 */
export async function registryCommand(
  home: string,
  orphanCleanup: string,
  options: InstallOptions = {},
): Promise<{ args: string[]; storage: string }> {
  const { signal } = options;
  const [tool, upstream] = await Promise.all([installRegistryTool(options), upstreamRegistry()]);
  signal?.throwIfAborted();
  mkdirSync(home, { recursive: true });
  const storage = join(home, "storage");
  const config = join(home, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(home, "htpasswd"))}`,
      "    max_users: 1",
      "uplinks:",
      "  upstream:",
      `    url: ${JSON.stringify(upstream)}`,
      "    timeout: 60s",
      "packages:",
      `  "${SCOPE}/*":`,
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      '  "**":',
      "    access: $all",
      "    proxy: upstream",
      "log: { type: stdout, format: json, level: warn }",
      "",
    ].join("\n"),
  );
  return { args: [join(REGISTRY_TOOL, "serve.mjs"), tool, config, orphanCleanup], storage };
}

/**
 * Starts Verdaccio ({@link registryCommand}) on a free loopback port with its storage in `home` (default: a new
 * temporary directory), creates one user and returns its token.
 *
 * @example
 * ```ts
 * const registry = await startRegistry();
 * try { … } finally { await registry.stop(); }
 * ```
 */
export async function startRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), "plant-store-registry-"));
  const { args, storage } = await registryCommand(home, options.orphanCleanup ?? home, {
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch((error: unknown) => {
    rmSync(home, { recursive: true, force: true });
    throw error;
  });
  const server = serve(args, home);
  try {
    const port = await listening(server, options.signal);
    const url = `http://127.0.0.1:${port}/`;
    const token = await createUser(url, home);
    const authority = url.replace(/^http:/, "");
    return {
      url,
      pid: server.child.pid as number,
      token,
      npmrc: `${SCOPE}:registry=${url}\n${authority}:_authToken=${token}\n`,
      storage,
      log: server.output,
      stop: server.stop,
    };
  } catch (error) {
    await server.stop();
    throw new Error(`${(error as Error).message}\n${server.output().slice(-4000)}`, { cause: error });
  }
}

/** Verdaccio's process while it starts: what it printed, when it exits, and how it is stopped. */
interface Serving {
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
  /** Stops Verdaccio (its whole process group) and removes `home`; safe to call twice. */
  stop(): Promise<void>;
}

function serve(args: string[], home: string): Serving {
  // Its own process group, so that stop() ends Verdaccio and anything it started, whatever happens here; its
  // stdin is ours, so that it also ends (and removes `orphanCleanup`) when this process ends without stop().
  const child = spawn(process.execPath, args, { cwd: home, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
      const killer = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {}
      }, 5_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(home, { recursive: true, force: true });
  };
  return { child, output: () => output, exited, stop };
}

/** The port serve.mjs reports once Verdaccio listens; rejects if it exits first, takes too long, or is aborted. */
function listening({ child, output, exited }: Serving, signal: AbortSignal | undefined): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Verdaccio did not listen within 60 s")), 60_000);
    const aborted = () => {
      clearTimeout(timer);
      reject(new Error("the rehearsal stopped while Verdaccio was starting"));
    };
    signal?.addEventListener("abort", aborted, { once: true });
    const check = () => {
      const line = output()
        .split("\n")
        .find((l) => l.startsWith('{"port":'));
      if (!line) return;
      clearTimeout(timer);
      signal?.removeEventListener("abort", aborted);
      resolve((JSON.parse(line) as { port: number }).port);
    };
    child.stdout?.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`Verdaccio exited before listening (code ${child.exitCode})`));
    });
  });
}

/** Creates the registry's one user, who may publish {@link SCOPE}, and returns its token. */
async function createUser(url: string, home: string): Promise<string> {
  const password = createHash("sha256").update(`${home}${Date.now()}`).digest("hex");
  const response = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "rehearsal", password }),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || !body.token) {
    throw new Error(`Verdaccio refused to create the rehearsal user: ${response.status} ${body.error ?? ""}`);
  }
  return body.token;
}

/** Registries a rehearsal never publishes to, whatever `--registry` says: its packages would be released for real. */
const PUBLIC_REGISTRIES = ["registry.npmjs.org", "registry.yarnpkg.com", "npm.pkg.github.com"];

/**
 * A `--registry` URL as the rehearsal uses it (with a trailing slash), or why it cannot be one: not an http(s)
 * URL, credentials, a query or a fragment in it (a token belongs in npm's config, never on a command line or in
 * a log), or a real registry (`upstream`, the one this machine's npm installs from, or a public one).
 *
 * @example
 * ```ts
 * checkRegistryUrl("http://127.0.0.1:4873", "https://registry.npmjs.org/"); // { url: "http://127.0.0.1:4873/" }
 * checkRegistryUrl("registry.npmjs.org", upstream); // { problem: "… is not an http(s) URL …" }
 * ```
 */
export function checkRegistryUrl(raw: string, upstream: string): { url: string } | { problem: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { problem: `${JSON.stringify(raw)} is not a URL; pass one like http://127.0.0.1:4873/` };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { problem: `${JSON.stringify(raw)} is not an http(s) URL; pass one like http://127.0.0.1:4873/` };
  }
  if (parsed.username || parsed.password) {
    return {
      problem:
        "the registry URL holds credentials: log in with `npm adduser --registry <url>` instead (npm keeps the token in ~/.npmrc)",
    };
  }
  if (parsed.search || parsed.hash) {
    return { problem: `${parsed.origin}${parsed.pathname}: a registry URL has no query or fragment` };
  }
  const url = `${parsed.origin}${parsed.pathname.endsWith("/") ? parsed.pathname : `${parsed.pathname}/`}`;
  if (PUBLIC_REGISTRIES.includes(parsed.hostname) || url === new URL(upstream).href) {
    return {
      problem: `${url} is a real registry (the one npm installs from here, or a public one): a rehearsal publishes only to a throwaway registry such as your own Verdaccio`,
    };
  }
  return { url };
}

/**
 * Whether a registry answers at `url` (Verdaccio's and npm's `-/ping`) within `ms`: undefined when it does, else
 * what went wrong, for the error message.
 */
export async function pingRegistry(url: string, ms = 10_000): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}-/ping`, { signal: AbortSignal.timeout(ms) });
    await response.body?.cancel();
    return response.ok ? undefined : `it answered ${response.status} to GET ${url}-/ping`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `GET ${url}-/ping failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
  }
}
