import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createLineBatcher, createLogger, REDACTED_PATHS } from "../src/index.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe("createLogger", () => {
  it("writes one JSON line per call, with the app name and the fields given", async () => {
    const { lines, stream } = capture();
    const logger = createLogger("plant-store-test", "info", stream);
    logger.info({ webhookId: "msg_1", status: 200 }, "webhook");
    logger.debug({ hidden: true }, "below the level");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      app: "plant-store-test",
      webhookId: "msg_1",
      status: 200,
      msg: "webhook",
    });
  });

  it("redacts every credential path it names, at the top level and nested", async () => {
    const { lines, stream } = capture();
    const logger = createLogger("plant-store-test", "info", stream);
    const secret = "whsec_c2VjcmV0LXRoYXQtbXVzdC1ub3QtbGVhaw==";
    const token = "psk_must_not_leak";
    logger.info({
      authorization: `Bearer ${token}`,
      token,
      tokens: [token],
      secret,
      secrets: [secret],
      adminToken: token,
      adminTokens: [token],
      encryptionKey: secret,
      privateKeys: [secret],
      forwardPrivateKeys: [secret],
      forwardSecret: secret,
      headers: { authorization: `Bearer ${token}`, "webhook-id": "msg_2" },
      req: { headers: { authorization: `Bearer ${token}` } },
      request: { headers: { authorization: `Bearer ${token}` } },
      subscription: { id: "sub_1", token, secret },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const text = JSON.stringify(lines);
    expect(text).not.toContain(token);
    expect(text).not.toContain(secret);
    expect(lines[0]?.headers).toEqual({ authorization: "[redacted]", "webhook-id": "msg_2" });
    expect(lines[0]?.subscription).toEqual({ id: "sub_1", token: "[redacted]", secret: "[redacted]" });
    expect(text.split("[redacted]").length - 1).toBe(REDACTED_PATHS.length);
  });
});

describe("createLineBatcher", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-log-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the lines of one event-loop turn together when the turn ends, in order", async () => {
    const file = join(dir, "turn.log");
    const fd = openSync(file, "w");
    const logger = pino({ base: null, timestamp: false }, createLineBatcher(fd));
    for (let i = 0; i < 50; i++) logger.info({ i }, "line");
    expect(readFileSync(file, "utf8")).toBe(""); // nothing yet: the turn is not over
    await new Promise((resolve) => setImmediate(resolve));
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).i)).toEqual([...Array(50).keys()]);
    logger.info({ i: 50 }, "line");
    logger.flush(); // pino's flush hands the pending line over at once
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(51);
    closeSync(fd);
  });

  it("adds one exit listener in all, however many batchers a process makes", () => {
    const before = process.listenerCount("exit");
    const fds = Array.from({ length: 20 }, (_, i) => openSync(join(dir, `many-${i}.log`), "w"));
    for (const fd of fds) createLineBatcher(fd);
    expect(process.listenerCount("exit") - before).toBeLessThanOrEqual(1);
    for (const fd of fds) closeSync(fd);
  });

  // The built package (turbo builds app-kit before its tests), as the apps' bins load it.
  it("writes what was logged in the turn that calls process.exit", () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const logger = createLogger("exit-test", "info");
      for (let i = 0; i < 3; i++) logger.info({ i }, "before exit");
      process.exit(3);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.status).toBe(3);
    const lines = child.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.app, line.i, line.msg])).toEqual([
      ["exit-test", 0, "before exit"],
      ["exit-test", 1, "before exit"],
      ["exit-test", 2, "before exit"],
    ]);
  });
  // A child logging into a pipe its parent does not read: the pipe fills and its writes fail with EAGAIN (node makes
  // a piped stdout non-blocking, as in the apps). The child must go on running, and write what it held, in order
  // and whole, once the parent reads again.
  const stalledChild = (script: string) => {
    const dist = JSON.stringify(new URL("../dist/index.js", import.meta.url).href);
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { createLineBatcher, createLogger } = await import(${dist});\n${script}`,
      ],
      { stdio: ["pipe", "pipe", "pipe"], cwd: dirname(fileURLToPath(import.meta.url)) },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const said = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (stderr.includes(text)) resolve();
          else if (child.exitCode !== null) reject(new Error(`the child ended first: ${stderr}`));
          else setTimeout(check, 20);
        };
        check();
      });
    /**
     * Once the child says "alive" (it ran while nobody read), reads its stdout until `marker` shows, then closes its
     * stdin (the child waits for that to finish); resolves with what it wrote once it exited 0.
     */
    const readUntil = async (marker: string) => {
      await said("alive");
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes(marker)) child.stdin.end();
      });
      expect(await exited, stderr).toBe(0);
      return out;
    };
    return { child, exited, said, readUntil, stderr: () => stderr };
  };

  it("keeps serving while stdout is blocked up to its cap, then waits for the reader, and drops no line", async () => {
    const { child, readUntil } = stalledChild(`
      const { default: pino } = await import("pino");
      process.stdout; // as in the apps: node makes a piped stdout non-blocking
      const logger = pino({ base: null, timestamp: false }, createLineBatcher(1, {
        maxHeldBytes: 2_000_000, retryMs: 5,
        onDropped: (lines) => logger.warn({ dropped: lines }, "dropped"),
      }));
      const pad = "x".repeat(80);
      const turns = async (from, to) => {
        for (let turn = from; turn < to; turn++) {
          for (let i = 0; i < 1000; i++) logger.info({ n: turn * 1000 + i, pad }, "line");
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      await turns(0, 10); // 1.1 MB: more than the pipe takes, less than the cap
      process.stderr.write("alive\\n"); // ten turns went by while nobody read stdout
      await turns(10, 30); // past the cap: these turns wait for the reader
      logger.info("end");
      await new Promise((resolve) => process.stdin.once("end", resolve).resume()); // until told to finish
    `);
    try {
      const out = await readUntil('"msg":"end"');
      const lines = out
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { msg: string; n?: number });
      const written = lines.filter((line) => line.msg === "line").map((line) => line.n);
      expect(written).toEqual([...Array(30_000).keys()]); // every line, in order, none twice
      expect(lines.filter((line) => line.msg === "dropped")).toEqual([]);
      expect(lines.at(-1)?.msg).toBe("end");
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("never splices two lines when a write takes only part of a turn's lines", async () => {
    const { child, readUntil } = stalledChild(`
      const { default: pino } = await import("pino");
      process.stdout;
      const logger = pino({ base: null, timestamp: false }, createLineBatcher(1, { retryMs: 5 }));
      const pad = "x".repeat(300);
      for (let i = 0; i < 4000; i++) logger.info({ n: i, pad }, "line"); // one turn of 1.3 MB: a partial write
      await new Promise((resolve) => setImmediate(resolve));
      logger.info({ n: "after" }, "line");
      process.stderr.write("alive\\n");
      await new Promise((resolve) => process.stdin.once("end", resolve).resume());
    `);
    try {
      const out = await readUntil('"n":"after"');
      const lines = out.trimEnd().split("\n");
      for (const line of lines) expect(() => JSON.parse(line), line.slice(0, 80)).not.toThrow();
      expect(lines).toHaveLength(4001);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("goes on running when nobody reads stdout any more (EPIPE), and drops the lines", async () => {
    const { child, exited, said, stderr } = stalledChild(`
      const logger = createLogger("epipe-test", "info");
      await new Promise((resolve) => process.stdin.once("end", resolve).resume()); // once stdout's reader is gone
      for (let turn = 0; turn < 5; turn++) {
        logger.info({ turn }, "line");
        await new Promise((resolve) => setImmediate(resolve));
      }
      process.stderr.write("alive\\n");
    `);
    child.stdout.destroy(); // the reader is gone: the child's writes fail with EPIPE
    child.stdin.end();
    try {
      await said("alive");
      expect(await exited, stderr()).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
