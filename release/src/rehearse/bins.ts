import { spawn } from "node:child_process";
import { join } from "node:path";
import { command, env } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { killGroup } from "./resources.js";

/** An app a consumer started: where it listens, and how it is stopped (its exit code checked). */
export interface RunningApp {
  url: string;
  stop(): Promise<number | null>;
}

/**
 * Starts a bin of the consumer's node_modules with `--port 0` and waits for its "listening" log line.
 *
 * @example
 * ```ts
 * const app = await startBin(ctx, consumer, "plant-store-sender", ["--admin-token", token, "--db", ":memory:"]);
 * await app.stop();
 * ```
 */
export async function startBin(
  ctx: RehearsalContext,
  dir: string,
  bin: string,
  args: string[],
): Promise<RunningApp> {
  const child = spawn(join(dir, "node_modules", ".bin", bin), ["--port", "0", ...args], {
    cwd: dir,
    env: env(ctx),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  ctx.children.add(child);
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
      killGroup(child, "SIGTERM");
      const code = await exited;
      ctx.children.delete(child);
      if (code !== 0) throw new Error(`${bin} exited with ${code} on SIGTERM:\n${output}`);
      return code;
    },
  };
}

/** Starts an app's bin and checks that it answers /healthz; returns it running. */
export async function startHealthy(
  ctx: RehearsalContext,
  dir: string,
  bin: string,
  args: string[],
  what = "/healthz",
): Promise<RunningApp> {
  const app = await startBin(ctx, dir, bin, args);
  const health = await fetch(`${app.url}/healthz`);
  if (health.status !== 200) throw new Error(`${what} answered ${health.status}`);
  return app;
}

/**
 * `plant-store …`: the consumer's installed bin (`npx plant-store --version` proves npx finds it; npx's own start
 * is not repeated for every call), or the copy's CLI for consumers that did not install it.
 */
export function cliIn(ctx: RehearsalContext, dir: string, withCli: boolean, args: string[]): Promise<string> {
  return withCli
    ? command(ctx, join(dir, "node_modules", ".bin", "plant-store"), args, {
        cwd: dir,
        env: env(ctx),
        stdout: true,
      })
    : command(ctx, process.execPath, [join(ctx.copy, "apps", "cli", "dist", "bin.js"), ...args], {
        cwd: dir,
      });
}
