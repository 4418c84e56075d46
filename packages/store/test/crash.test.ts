import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { until } from "../../../test-support/processes.js";
import { spawnChild } from "./support/child.js";

// The child is plain `node` importing the store's TypeScript sources through a small loader hook
// (test/support/ts-hooks.mjs, TypeScript's transpileModule): no build step, no dependency on
// core's dist being current, and the code under test is exactly the code in src/.
const ROUNDS = 8;
const MIN_ACKED_PER_ROUND = 20;
const dir = mkdtempSync(join(tmpdir(), "plant-store-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`keeps every acknowledged inbox write across ${ROUNDS} kill -9s`, async () => {
  const file = join(dir, "crash.db");
  const acknowledged = new Set<string>();
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const run = spawnChild("./crash-child.mjs", [file, `r${round}`]);
    await run.ready;
    expect(run.stderr()).toBe("");
    // Killed only once this round acknowledged writes (evidence, not time: on a busy machine a fixed delay could end
    // before the first one), at a random point after that, so the kill lands mid-commit as often as between.
    await until(() => run.lines.length >= MIN_ACKED_PER_ROUND, 60_000);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
    run.child.kill("SIGKILL");
    await run.closed; // all stdout the child wrote before dying has been read
    expect(run.child.signalCode).toBe("SIGKILL");
    for (const id of run.lines) acknowledged.add(id);
    perRound.push(run.lines.length);
  }

  const db = new Database(file);
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const stored = new Set(db.prepare("SELECT webhook_id FROM inbox_events").pluck().all() as string[]);
    const missing = [...acknowledged].filter((id) => !stored.has(id));
    console.info(
      `[crash] ${ROUNDS} kill -9s; acknowledged ${acknowledged.size} (per round ${perRound.join(", ")}); ` +
        `present after reopen ${acknowledged.size - missing.length}; missing ${missing.length}; ` +
        `rows ${stored.size} (${stored.size - (acknowledged.size - missing.length)} committed but not yet acknowledged when killed)`,
    );
    expect(missing).toEqual([]);
    expect(perRound.every((n) => n >= MIN_ACKED_PER_ROUND)).toBe(true);
  } finally {
    db.close();
  }
}, 300_000);
