import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BIN, SECRET, TOKEN } from "./support.js";

const run = promisify(execFile);
async function bin(args: string[], env: Record<string, string> = {}) {
  const result = await run(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH as string, ...env },
    timeout: 15_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { code: "code" in result ? result.code : 0, stdout: result.stdout, stderr: result.stderr };
}

describe("plant-store-receiver configuration", () => {
  it("--help and --version exit 0", async () => {
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-store-receiver/m);
    expect(help.stdout).toContain("PLANT_STORE_TOKEN ");
    const version = await bin(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n" });
  });

  it.each([
    [["--port", "4000"], {}, /at least one accepted bearer token/],
    [["--bogus"], {}, /Unknown option '--bogus'/],
    [["--token", TOKEN, "--port", "70000"], {}, /port.*at most 65535/],
    [["--token", TOKEN, "--secret", "n*pe"], {}, /secret.*entry 1.*not valid base64/i],
    [["--token", TOKEN, "--secret", "whpk_AAAA"], {}, /ed25519 public key .*configure it as a public key/],
    [["--token", TOKEN, "--public-key", "whpk_AAAA"], {}, /--public-key .*entry 1.*32 bytes/],
    [
      ["--token", TOKEN],
      { PLANT_STORE_WEBHOOK_PUBLIC_KEY: "whsk_AAAA" },
      /PLANT_STORE_WEBHOOK_PUBLIC_KEY entry 1: .*private key/,
    ],
    [["--token", TOKEN, "--secret", "whsec_AAAA"], {}, /secret.*entry 1/i],
    [["--token", TOKEN, "--max-body", "lots"], {}, /--max-body.*whole number/],
    [["--token", TOKEN, "--log-level", "loud"], {}, /--log-level \/ PLANT_STORE_LOG_LEVEL/],
    [
      ["--token", TOKEN],
      { PLANT_STORE_WEBHOOK_SECRET: " " },
      /--secret \/ PLANT_STORE_WEBHOOK_SECRET: is set but empty/,
    ],
    [["--token", TOKEN, "--secret="], {}, /--secret .*set but empty/],
    [[], { PLANT_STORE_TOKEN: "psk_short" }, /--token \/ PLANT_STORE_TOKEN: .*damaged/],
    // The older name is still read.
    [[], { PLANT_STORE_TOKENS: "psk_short" }, /damaged/],
  ] as const)("exits 2 and says what to fix: %j %j", async (args, env, message) => {
    const result = await bin([...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain(TOKEN);
    expect(result.stderr).not.toContain("psk_short");
    expect(result.stderr).not.toContain(SECRET);
  });

  it("reads the environment (flags win)", async () => {
    const result = await bin(["--port", "70000"], { PLANT_STORE_TOKENS: TOKEN, PORT: "4000" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/65535/);
  });

  // Each used to spin at 100% CPU (/proc), or say "unavailable (EEXIST)" / SQLITE_CANTOPEN / ECONNREFUSED without
  // the path or the server. The spin never exits: execFile's 15 s timeout would fail the test.
  it.each([
    ["/proc/nope/x.db", 1, /Cannot create \/proc\/nope for the SQLite database \(ENOENT\)/],
    ["/etc/passwd/x.db", 2, /\/etc\/passwd is a file, not a directory/],
    [tmpdir(), 2, new RegExp(`path ${tmpdir()} is a directory; give a file path`)],
    [
      "postgres://someone:pw@127.0.0.1:1/db",
      1,
      /PostgreSQL at 127\.0\.0\.1:1 is unavailable \(ECONNREFUSED\)/,
    ],
  ] as const)("a database that cannot work (%s): one line naming it, exit %i", async (db, code, message) => {
    const result = await bin(["--token", TOKEN, "--db", db, "--port", "0"]);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain(":pw@");
    expect(result.stdout).not.toMatch(/chmod/);
  });
});
