import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { openAppStore, readiness } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "app-kit-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openAppStore", () => {
  it("opens a path (owned), and uses an open store as given (not owned)", async () => {
    const opened = await openAppStore(join(dir, "a.db"));
    try {
      expect(opened.owned).toBe(true);
      expect(opened.store.backend).toBe("sqlite");
      const given = await openAppStore(opened.store);
      expect(given).toEqual({ store: opened.store, owned: false });
    } finally {
      await opened.store.close();
    }
    const memory = await openAppStore(undefined);
    expect(memory.owned).toBe(true);
    await memory.store.close();
  });
});

describe("readiness", () => {
  it("200 when the store can take a write; 503 naming only the code, the details logged", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const ok = await openAppStore({ url: join(dir, "ok.db") }, { logger });
    expect(await readiness(ok.store, { app: "receiver", logger })).toEqual({
      status: 200,
      body: { status: "ready", backend: "sqlite" },
    });
    await ok.store.close();
    const full = await openAppStore(
      { url: join(dir, "full.db"), minFreeDiskBytes: Number.MAX_SAFE_INTEGER },
      { logger },
    );
    try {
      const answer = await readiness(full.store, { app: "sender", logger });
      expect(answer).toEqual({
        status: 503,
        body: {
          error: 503,
          message: expect.stringMatching(/^Not ready \(disk_low\): .*The sender's log says why\.$/),
        },
      });
      expect(answer.status === 503 && answer.body.message).not.toContain(dir);
      expect(lines.some((line) => line.includes('"code":"disk_low"') && line.includes("not ready"))).toBe(
        true,
      );
    } finally {
      await full.store.close();
    }
  });
});
