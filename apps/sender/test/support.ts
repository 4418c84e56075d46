import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { listeningUrl, type Running as Shared, startProcess } from "../../../test-support/processes.js";

export const SENDER_BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const RECEIVER_BIN = fileURLToPath(new URL("../../receiver/dist/bin.js", import.meta.url));
export const ADMIN = createToken();
export const TOKEN = createToken();
export const SECRET = createSecret();

/** A running app process; `url` is its base URL. */
export type Running = Shared & { url: string };

const dirs: string[] = [];
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-sender-test-"));
  dirs.push(dir);
  return dir;
}
export function cleanup(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Starts a built bin (port 0 unless `--port` is given later) and waits for its "listening" log line. */
export async function start(bin: string, args: string[]): Promise<Running> {
  const running = await startProcess(bin, ["--port", "0", ...args], (out) => listeningUrl(out));
  return { ...running, url: running.info };
}

export function stop(running: Running, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  return running.stop(signal);
}

/** Calls the sender's admin API. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body !== undefined && { "content-type": "application/json" }),
      ...headers,
    },
    ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (metrics)
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A local HTTP sink whose answers the test scripts; records every request it got. */
export interface Sink {
  url: string;
  /** `at`: when the request began to arrive (`performance.now()`), for rates measured at the receiving end. */
  requests: { headers: IncomingMessage["headers"]; body: string; at: number }[];
  close(): Promise<void>;
}
export async function sink(
  answer: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<Sink> {
  const requests: Sink["requests"] = [];
  const server: Server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), at });
      answer(req, res, requests.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/plant/webhook`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
