import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";

// The built package (turbo builds app-kit before its tests), as the apps' bins load it, in a real process that gets
// a real SIGTERM.
const dist = JSON.stringify(new URL("../dist/index.js", import.meta.url).href);

async function runAndTerminate(closeMs: number, deadlineMs: number) {
  const script = `
    const { createLogger, runServer } = await import(${dist});
    await runServer({
      name: "deadline-test", version: "0.0.0", help: "",
      config: () => ({ port: 0, host: "127.0.0.1" }),
      logger: () => createLogger("deadline-test", "info"),
      start: async () => {
        const sockets = setInterval(() => {}, 1000); // what keeps a server's process alive until it closes
        return {
          listen: async () => "http://127.0.0.1:0",
          close: () => new Promise((resolve) => setTimeout(() => resolve(clearInterval(sockets)), ${closeMs})),
        };
      },
      shutdownTimeoutMs: () => ${deadlineMs},
    });
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  while (!out.includes('"listening"')) await once(child.stdout, "data");
  const t0 = Date.now();
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  return {
    code,
    ms: Date.now() - t0,
    lines: out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l)),
  };
}

describe("runServer shutdown", () => {
  it("exits 1 with an error line when a graceful close outlasts the deadline", async () => {
    const { code, ms, lines } = await runAndTerminate(60_000, 300);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(5_000);
    expect(lines.at(-1)).toMatchObject({
      level: 50,
      deadlineMs: 300,
      msg: expect.stringContaining("did not finish in time"),
    });
  });

  it("does not cut a close that finishes within the deadline", async () => {
    const { code, lines } = await runAndTerminate(200, 5_000);
    expect(code).toBe(0);
    expect(lines.map((l) => l.msg)).toContain("stopped");
    expect(lines.some((l) => l.level === 50)).toBe(false);
  });
});
