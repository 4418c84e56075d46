import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** How a command runs. */
export interface CommandOptions {
  cwd: string;
  /** Kills the command when aborted: the rehearsal's cleanup aborts whatever still runs. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  timeout?: number;
  /** Return stdout only (JSON answers); by default stdout and stderr. */
  stdout?: boolean;
}

/** A command that failed: its command line, exit code and the tail of what it printed. */
export class CommandError extends Error {}

/**
 * Runs a command to its end and returns what it printed; a failure is a {@link CommandError} whose message holds
 * the command line, how it ended and the last lines of its output.
 *
 * @example
 * ```ts
 * const out = await exec("npm", ["whoami"], { cwd: tmpdir(), stdout: true });
 * ```
 */
export async function exec(
  cmd: string,
  args: string[],
  { cwd, env, timeout = 600_000, stdout: only, signal }: CommandOptions,
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
