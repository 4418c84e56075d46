import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken, sign } from "@plant-store/core";
import { listeningUrl, type Running as Shared, startProcess } from "../../../test-support/processes.js";

export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const TOKEN = createToken();
export const ADMIN = createToken();
export const SECRET = createSecret();

/** A running receiver process; `url` is its base URL. */
export type Running = Shared & { url: string };
const dirs: string[] = [];
/** A temporary directory removed by {@link cleanup}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-receiver-test-"));
  dirs.push(dir);
  return dir;
}
export function cleanup(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Starts the built bin on port 0 and waits for its "listening" line. */
export async function startReceiver(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const running = await startProcess(BIN, ["--port", "0", ...args], (out) => listeningUrl(out), env);
  return { ...running, url: running.info };
}

/** Signed, authenticated headers for one New Plant delivery. */
export async function signedHeaders(
  body: string,
  options: { id?: string; timestamp?: number; secret?: string; token?: string } = {},
): Promise<Record<string, string>> {
  const id = options.id ?? `msg_${Math.random().toString(36).slice(2)}`;
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    authorization: `Bearer ${options.token ?? TOKEN}`,
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await sign({ secret: options.secret ?? SECRET, id, timestamp, body }),
  };
}

export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(`${url}/plant/webhook`, { method: "POST", body, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}
