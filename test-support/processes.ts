// Test helpers shared by the app suites (not published): run a built bin as a child process, build what the
// tests run, and give each PostgreSQL test a database of its own.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** Every child a test started and that has not exited yet. */
const live = new Set<ChildProcess>();

/**
 * Remembers a child so that it is killed when its test file ends, whatever happened to the test that started it
 * (a timed-out test's `finally` may never run): `test-support/setup.ts` calls {@link killTracked} after each file,
 * and a worker that exits kills what is left.
 *
 * @example
 * ```ts
 * const child = track(spawn(process.execPath, [bin]));
 * ```
 */
export function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (live.size === 1 && !exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const running of live) running.kill("SIGKILL");
    });
  }
  return child;
}
let exitHooked = false;

/**
 * Kills every tracked child still running and waits for them to exit.
 *
 * @example
 * ```ts
 * afterAll(killTracked);
 * ```
 */
export async function killTracked(): Promise<void> {
  const running = [...live];
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/** A running child process and what it printed. */
export interface Running {
  child: ChildProcess;
  /** What `ready` returned (a URL, a log line). */
  info: string;
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Signals the process (unless it already exited) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node <bin> ...args` and resolves once `ready(stdout, stderr)` returns a string; kills the child and
 * rejects (with everything it printed) after 30 s or when it exits first.
 *
 * @example
 * ```ts
 * const app = await startProcess(BIN, ["--port", "0"], (out) => listeningUrl(out));
 * ```
 */
export async function startProcess(
  bin: string,
  args: string[],
  ready: (stdout: string, stderr: string) => string | undefined,
  env: Record<string, string> = {},
): Promise<Running> {
  const child = track(
    spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk) => (out += chunk));
  child.stderr?.on("data", (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const info = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`not ready within 30 s:\n${out}\n${err}`));
    }, 30_000);
    const check = () => {
      const found = ready(out, err);
      if (found === undefined) return;
      clearTimeout(timer);
      child.stdout?.off("data", check);
      child.stderr?.off("data", check);
      resolve(found);
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}\n${err}`));
    });
  });
  return {
    child,
    info,
    output: () => out + err,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The URL of an app's JSON `"listening"` log line, once it was printed.
 *
 * @example
 * ```ts
 * listeningUrl('{"msg":"listening","url":"http://127.0.0.1:4000"}\n'); // "http://127.0.0.1:4000"
 * ```
 */
export function listeningUrl(stdout: string): string | undefined {
  const line = stdout.split("\n").find((l) => l.includes('"msg":"listening"'));
  return line ? (JSON.parse(line) as { url: string }).url : undefined;
}

/**
 * Vitest global setup for suites that run built bins: builds the given packages (and what they import) with
 * turbo — unless turbo is already running this test task, whose build dependencies then ran first.
 *
 * @example
 * ```ts
 * export default () => buildForTests(["@plant-store/receiver"]);
 * ```
 */
export function buildForTests(packages: string[]): void {
  if (process.env.TURBO_HASH) {
    console.log("[global-setup] built by turbo (dependsOn build)");
    return;
  }
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(
    `${root}node_modules/.bin/turbo`,
    ["run", "build", ...packages.map((p) => `--filter=${p}...`), "--output-logs=errors-only"],
    { cwd: root, stdio: "inherit", env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } },
  );
}

/**
 * A PostgreSQL database of its own for one test file, created on the server of `serverUrl` and dropped
 * (connections closed) by `drop()`.
 *
 * @example
 * ```ts
 * const db = await createDatabase(process.env.PLANT_STORE_TEST_PG_URL!, "receiver");
 * // … db.url …
 * await db.drop();
 * ```
 */
export async function createDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; name: string; client: pg.Client; drop(): Promise<void> }> {
  const name = `plant_store_${prefix}_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  const target = new URL(serverUrl);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    name,
    client,
    async drop() {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Polls `check` every 50 ms until it returns a value (evidence, not a fixed sleep); rejects after `timeoutMs`.
 *
 * @example
 * ```ts
 * const line = await until(() => app.stdout().split("\n").find((l) => l.includes('"msg":"stored"')));
 * ```
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A loopback port nothing listens on right now (for a process that must be told its port before it starts).
 *
 * @example
 * ```ts
 * const port = await freePort();
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
