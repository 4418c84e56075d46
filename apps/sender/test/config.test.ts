import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ADMIN, SENDER_BIN } from "./support.js";

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
