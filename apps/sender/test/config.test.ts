import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { listeningUrl, startProcess } from "../../../test-support/processes.js";
import { ADMIN, api, cleanup, SENDER_BIN, start, stop, tempDir } from "./support.js";

const run = promisify(execFile);
async function bin(args: string[], env: Record<string, string> = {}) {
  const result = await run(process.execPath, [SENDER_BIN, ...args], {
    env: { PATH: process.env.PATH as string, ...env },
    timeout: 15_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { code: "code" in result ? result.code : 0, stdout: result.stdout, stderr: result.stderr };
}

describe("plant-store-sender configuration", () => {
  it("--help (with examples) and --version exit 0", async () => {
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-store-sender/m);
    expect(help.stdout).toMatch(/^Examples:/m);
    expect(await bin(["--version"])).toMatchObject({ code: 0, stdout: "0.1.0\n" });
  });

  it.each([
    [[], /admin API needs a token/],
    [["--admin-token", ADMIN, "--allow-networks", "localhost"], /allow-networks.*CIDR/],
    [["--admin-token", ADMIN, "--encryption-key", "short"], /encryption-key/],
    [
      [
        "--admin-token",
        ADMIN,
        "--encryption-key",
        randomBytes(32).toString("hex"),
        "--previous-encryption-keys",
        "k1,k2",
      ],
      /previous-encryption-keys.*32 random bytes/,
    ],
    [
      ["--admin-token", ADMIN, "--previous-encryption-keys", randomBytes(32).toString("base64")],
      /previous-encryption-keys.*set --encryption-key/,
    ],
    [["--admin-token", ADMIN, "--schedule", "soon"], /--schedule takes milliseconds/],
    [["--admin-token", ADMIN, "--concurrency", "0"], /at least 1/],
    [["--admin-token", "psk_damaged"], /damaged/],
  ])("exits 2 and says what to fix: %j", async (args, message) => {
    const result = await bin(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(ADMIN);
    expect(result.stderr).not.toContain("psk_damaged");
  });
});

describe("encryption keys at start", () => {
  afterAll(cleanup);

  it("exits 1 naming the key id when the stored credentials need a key that is not configured", async () => {
    const db = join(tempDir(), "sender.db");
    const k1 = randomBytes(32).toString("base64");
    const k2 = randomBytes(32).toString("hex");
    const args = ["--admin-token", ADMIN, "--db", db, "--allow-networks", "127.0.0.0/8"];
    const first = await start(SENDER_BIN, [...args, "--encryption-key", k1]);
    const created = await api(first.url, "POST", "/subscriptions", {
      url: "http://127.0.0.1:9/plant/webhook",
    });
    expect(created.status).toBe(201);
    expect(await stop(first)).toBe(0);

    for (const [extra, env] of [
      [["--encryption-key", k2], {}],
      [[], {}],
      [[], { PLANT_STORE_ENCRYPTION_KEY: k2 }],
    ] as const) {
      const result = await bin([...args, "--port", "0", ...extra], env);
      expect(result.code, JSON.stringify(extra)).toBe(1);
      expect(result.stderr + result.stdout).toMatch(
        /encrypted with key [0-9a-f]{8}, which is not configured/,
      );
      expect(result.stderr + result.stdout).not.toContain(k1);
      expect(result.stderr + result.stdout).not.toContain(k2);
    }

    const rotated = await startProcess(
      SENDER_BIN,
      [...args, "--port", "0", "--encryption-key", k2],
      (out) => listeningUrl(out),
      { PLANT_STORE_PREVIOUS_ENCRYPTION_KEYS: k1 },
    );
    const list = await api(rotated.info, "GET", "/subscriptions");
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([created.body.id]);
    expect(await rotated.stop()).toBe(0);
  });
});
