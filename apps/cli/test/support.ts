import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const RECEIVER_BIN = fileURLToPath(new URL("../../receiver/dist/bin.js", import.meta.url));
export const SENDER_BIN = fileURLToPath(new URL("../../sender/dist/bin.js", import.meta.url));

/** Runs the built CLI to completion: exit code, stdout, stderr. */
export function cli(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.stdin.end(options.input ?? "");
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running process (listen, receiver, sender) and what it printed. */
export interface Background {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

export async function background(
  bin: string,
  args: string[],
  ready: (stdout: string, stderr: string) => string | undefined,
): Promise<Background & { info: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c) => (out += c));
  child.stderr?.on("data", (c) => (err += c));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const info = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`not ready in 15 s:\n${out}\n${err}`));
    }, 15_000);
    const check = () => {
      const found = ready(out, err);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${out}\n${err}`));
    });
  });
  return {
    child,
    info,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The "listening" URL from an app's JSON log line. */
export const listeningUrl = (stdout: string) => {
  const line = stdout.split("\n").find((l) => l.includes('"msg":"listening"'));
  return line ? (JSON.parse(line) as { url: string }).url : undefined;
};

export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
