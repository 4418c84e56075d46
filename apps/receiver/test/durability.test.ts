import { spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@plant-store/store";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, track, until } from "../../../test-support/processes.js";
import { cleanup, type Running, SECRET, signedHeaders, startReceiver, TOKEN, tempDir } from "./support.js";

afterAll(cleanup);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("durability", () => {
  it("every request answered 200 is in the inbox after kill -9 × 6 under load from another process", async () => {
    const db = join(tempDir(), "receiver.db");
    const port = String(await freePort());
    const args = ["--token", TOKEN, "--secret", SECRET, "--db", db];
    const start = async () => {
      const r = await startReceiver(args);
      // startReceiver binds port 0; a fixed port keeps the load generator pointed at every incarnation.
      r.child.kill("SIGKILL");
      await r.exited;
      return startReceiverOn(port, args);
    };
    let receiver = await start();
    const load = track(
      spawn(
        process.execPath,
        [fileURLToPath(new URL("./load-child.mjs", import.meta.url)), receiver.url, TOKEN, SECRET, "kill"],
        { stdio: ["ignore", "pipe", "inherit"] },
      ),
    );
    let acked = "";
    load.stdout?.on("data", (chunk) => (acked += chunk));
    const count = () => acked.split("\n").length - 1;
    const kills = 6;
    const perRound = 100;
    for (let i = 0; i < kills; i++) {
      // Each incarnation is killed only after it acknowledged writes of its own (evidence, not time), at a
      // random point after that, so a busy machine slows the test down instead of making it pass on nothing.
      const before = count();
      await until(() => count() >= before + perRound, 60_000);
      await sleep(Math.random() * 300);
      receiver.child.kill("SIGKILL");
      await receiver.exited;
      receiver = await startReceiverOn(port, args);
    }
    const before = count();
    await until(() => count() >= before + perRound, 60_000);
    load.kill("SIGTERM");
    await new Promise((r) => load.once("exit", r));
    receiver.child.kill("SIGTERM");
    expect(await receiver.exited).toBe(0);

    const ids = acked.trim().split("\n").filter(Boolean);
    const store = await openStore(db);
    const missing: string[] = [];
    for (const id of ids) if (!(await store.inbox.get(id))) missing.push(id);
    const stored = await store.inbox.count();
    await store.close();
    console.log(
      `durability: ${kills} × kill -9, ${ids.length} ids answered 200, ${missing.length} missing, ${stored} stored`,
    );
    expect(ids.length).toBeGreaterThanOrEqual((kills + 1) * perRound);
    expect(missing).toEqual([]);
  }, 180_000);

  it("SIGTERM drains: requests in flight finish with 200 and are stored, the process exits 0", async () => {
    const db = join(tempDir(), "drain.db");
    const receiver = await startReceiver(["--token", TOKEN, "--secret", SECRET, "--db", db]);
    const { port } = new URL(receiver.url);
    const body = JSON.stringify({ id: 5, name: "Slow fern" });
    const inFlight = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const headers = await signedHeaders(body, { id: `msg_drain_${i}` });
        const req = request({ host: "127.0.0.1", port, path: "/plant/webhook", method: "POST", headers });
        const status = new Promise<number>((resolve, reject) => {
          req.on("response", (res) => {
            res.resume();
            resolve(res.statusCode as number);
          });
          req.on("error", reject);
        });
        // Headers and half the body are in; the rest comes after SIGTERM.
        await new Promise((resolve) => req.write(body.slice(0, 10), resolve));
        return { req, status };
      }),
    );
    // Evidence that the receiver took the five connections: one opened after them was answered.
    expect((await fetch(`${receiver.url}/healthz`)).status).toBe(200);
    receiver.child.kill("SIGTERM");
    // New connections are refused while the in-flight ones finish.
    await until(
      () =>
        fetch(`${receiver.url}/healthz`).then(
          () => false,
          () => true,
        ),
      10_000,
    );
    for (const { req } of inFlight) req.end(body.slice(10));
    expect(await Promise.all(inFlight.map((f) => f.status))).toEqual([200, 200, 200, 200, 200]);
    expect(await receiver.exited).toBe(0);
    const store = await openStore(db);
    for (let i = 0; i < 5; i++) expect(await store.inbox.get(`msg_drain_${i}`)).not.toBeNull();
    await store.close();
  }, 30_000);
});

async function startReceiverOn(port: string, args: string[]): Promise<Running> {
  // startReceiver passes --port 0 first; a later --port wins in parseArgs.
  return startReceiver([...args, "--port", port]);
}
