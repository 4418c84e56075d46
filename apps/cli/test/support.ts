import { spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type Running, startProcess, track } from "../../../test-support/processes.js";

export const CLI = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const RECEIVER_BIN = fileURLToPath(new URL("../../receiver/dist/bin.js", import.meta.url));
export const SENDER_BIN = fileURLToPath(new URL("../../sender/dist/bin.js", import.meta.url));

/**
 * A test's timeout for the processes it runs: each CLI run starts a Node process, which takes seconds on a busy
 * shared machine, so 8 s each, plus 15 s for the servers it starts.
 */
export function budget(cliRuns: number): number {
  return cliRuns * 8_000 + 15_000;
}

/** Runs the built CLI to completion: exit code, stdout, stderr. */
export function cli(
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, NO_COLOR: "1", ...options.env },
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.stdin.end(options.input ?? "");
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

export { listeningUrl } from "../../../test-support/processes.js";

/** A long-running process (listen, receiver, sender) and what it printed. */
export function background(
  bin: string,
  args: string[],
  ready: (stdout: string, stderr: string) => string | undefined,
): Promise<Running> {
  return startProcess(bin, args, ready);
}

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

/** A real HTTP server recording every request's headers and exact body bytes; answers `status` (default 200). */
export async function captureServer(status = 200) {
  const requests: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`;
  return { url, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
