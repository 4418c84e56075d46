import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { track } from "../../../../test-support/processes.js";

const register = fileURLToPath(new URL("./register-ts.mjs", import.meta.url));

/**
 * Spawns a plain `node` child running `script` (in test/support) against the store's TypeScript
 * sources through the ts-hooks loader; `lines` collects each complete stdout line.
 */
export function spawnChild(script: string, args: string[]) {
  const child: ChildProcess = track(
    spawn(
      process.execPath,
      [
        "--conditions=@plant-store/source",
        "--import",
        register,
        fileURLToPath(new URL(script, import.meta.url)),
        ...args,
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    ),
  );
  const lines: string[] = [];
  let partial = "";
  let stderr = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    // A line cut by kill -9 has no newline yet: it is not counted.
    partial = parts.pop() ?? "";
    for (const line of parts) {
      if (line === "ready") onReady();
      else lines.push(line);
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) onReady(); // let a waiting test fail on stderr instead of hanging
  });
  return { child, lines, ready, closed, stderr: () => stderr };
}
