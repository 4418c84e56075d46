import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// A server as the apps' bins run one (runServer, createLogger on stdout, a line per request written by
// createLineWriter), in a child process: every request's line must reach stdout's reading end, through a pipe or a
// file, also when SIGTERM comes right after the last answer or in the middle of the load.
const dist = JSON.stringify(new URL("../dist/index.js", import.meta.url).href);
const SERVER = `
  const { createLineWriter, createLogger, runServer } = await import(${dist});
  const { createServer } = await import("node:http");
  await runServer({
    name: "lines-test", version: "0", help: "",
    config: () => ({ port: 0, host: "127.0.0.1" }),
    logger: () => createLogger("lines-test", "info"),
    start: async (_config, logger) => {
      const line = createLineWriter(logger, "info", "request", ["n"]);
      const server = createServer((req, res) => {
        line({ n: Number(req.url.slice(1)) });
        res.end("ok");
      });
      return {
        listen: (port, host) =>
          new Promise((resolve) => server.listen(port, host, () => resolve("http://" + host + ":" + server.address().port))),
        close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); }),
      };
    },
  });
`;

interface Line {
  msg: string;
  n?: number;
  url?: string;
}

/** Starts the server with stdout a drained pipe, or a file; `lines()` parses what reached the reading end. */
function startServer(stdout: "pipe" | "file", dir: string) {
  const file = join(dir, `stdout-${Math.random().toString(36).slice(2)}.log`);
  const out = stdout === "pipe" ? "pipe" : openSync(file, "w");
  const child = spawn(process.execPath, ["--input-type=module", "-e", SERVER], {
    stdio: ["ignore", out, "pipe"],
  });
  let piped = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    piped += chunk;
  });
  const text = () => (stdout === "pipe" ? piped : readFileSync(file, "utf8"));
  const lines = (): Line[] =>
    text()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  // "close": the process exited and its pipe was read to the end.
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const url = new Promise<string>((resolve, reject) => {
    const look = () => {
      const listening = lines().find((line) => line.msg === "listening");
      if (listening?.url) resolve(listening.url);
      else if (child.exitCode !== null) reject(new Error("the server exited before listening"));
      else setTimeout(look, 20);
    };
    look();
  });
  return { child, lines, exited, url };
}

/** Sends requests `from`…`to − 1` over `connections` keep-alive connections; resolves with the answered ones. */
async function load(url: string, from: number, to: number, connections: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const answered: number[] = [];
  let next = from;
  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const req = request(`${url}/${n}`, { agent }, (res) => {
        res.resume().once("end", () => {
          if (res.statusCode === 200) answered.push(n);
          resolve();
        });
      });
      req.once("error", () => resolve()); // the server stopped: this one got no answer
      req.end();
    });
  const worker = async () => {
    while (next < to) await one(next++);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return answered;
}

describe("a server's request lines on stdout", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-log-lines-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const N = 2_000;

  for (const stdout of ["pipe", "file"] as const) {
    it(`every request's line reaches the ${stdout}, also the last ones before SIGTERM`, async () => {
      const server = startServer(stdout, dir);
      const answered = await load(await server.url, 0, N, 50);
      server.child.kill("SIGTERM"); // at once: the last turn's lines may still wait to be written
      expect(await server.exited).toBe(0);
      expect(answered).toHaveLength(N);
      const lines = server.lines();
      const requests = lines.filter((line) => line.msg === "request").map((line) => line.n);
      expect(requests.sort((a, b) => (a as number) - (b as number))).toEqual([...Array(N).keys()]);
      expect(lines.at(-1)?.msg).toBe("stopped");
    }, 60_000);
  }

  it("every answered request's line reaches the pipe when SIGTERM comes in the middle of the load", async () => {
    const server = startServer("pipe", dir);
    const url = await server.url;
    const first = await load(url, 0, N / 2, 50);
    const rest = load(url, N / 2, N, 50);
    setTimeout(() => server.child.kill("SIGTERM"), 5);
    const answered = [...first, ...(await rest)];
    expect(await server.exited).toBe(0);
    const logged = new Set(server.lines().map((line) => line.n));
    expect(answered.length).toBeGreaterThanOrEqual(N / 2);
    expect(answered.filter((n) => !logged.has(n))).toEqual([]);
  }, 60_000);
});
