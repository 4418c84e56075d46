import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToken, MAX_BATCH_EVENTS } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Running } from "../../../test-support/processes.js";
import { background, budget, cli, listeningUrl, SENDER_BIN } from "./support.js";

const admin = createToken();
const dir = mkdtempSync(join(tmpdir(), "plant-store-publish-file-"));
let sender: Running;
let env: Record<string, string>;

beforeAll(async () => {
  // The subscription points at a closed port and retries in an hour: what is stored stays countable.
  sender = await background(
    SENDER_BIN,
    [
      "--port",
      "0",
      "--admin-token",
      admin,
      "--db",
      ":memory:",
      "--allow-networks",
      "127.0.0.0/8",
      "--schedule",
      "3600000",
    ],
    (out) => listeningUrl(out),
  );
  env = { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKEN: admin };
  const added = await cli(["subscriptions", "add", "http://127.0.0.1:9/plant/webhook"], { env });
  expect(added.code, added.stderr).toBe(0);
}, budget(1));

afterAll(async () => {
  await sender.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** How many deliveries the sender holds (one subscription: one per message). */
async function stored(): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await fetch(
      `${sender.info}/deliveries?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    const body = (await page.json()) as { data: unknown[]; nextCursor: string | null };
    n += body.data.length;
    cursor = body.nextCursor ?? undefined;
  } while (cursor);
  return n;
}

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("plant-store publish --file events.ndjson against a real sender", () => {
  it(
    "publishes every line in batches under the limit: plain events and envelopes with keys; again: keyed lines are duplicates",
    async () => {
      const count = MAX_BATCH_EVENTS + 500; // two batches
      const lines = Array.from({ length: count }, (_, i) =>
        i % 2 === 0
          ? JSON.stringify({ id: i + 1, name: `Fern ${i + 1}` })
          : JSON.stringify({
              payload: { id: i + 1, name: `Moss ${i + 1}` },
              idempotencyKey: `line-${i + 1}`,
            }),
      );
      lines.splice(10, 0, ""); // a blank line is skipped, and the numbering still follows the file
      lines[0] = '{"id":9223372036854775807,"name":"Largest"}';
      const path = file("plants.ndjson", lines);
      const before = await stored();
      const first = await cli(["publish", "--file", path], { env });
      expect(first.stderr).toBe(""); // no progress bar on a pipe
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(
        `Published ${count} events: ${count} new, 0 duplicates; ${count} deliveries queued.\n`,
      );
      expect((await stored()) - before).toBe(count);

      const again = await cli(["publish", "--file", path, "--json"], { env });
      expect(again.code, again.stderr).toBe(0);
      const data = JSON.parse(again.stdout).data as { line: number; duplicate: boolean; messageId: string }[];
      expect(data).toHaveLength(count);
      expect(data[10]?.line).toBe(12);
      expect(data.filter((r) => r.duplicate).length).toBe(count / 2);
      expect(data.every((r) => r.duplicate === (r.line <= 10 ? r.line % 2 === 0 : r.line % 2 === 1))).toBe(
        true,
      );
      expect((await stored()) - before).toBe(count + count / 2);
      const largest = await fetch(`${sender.info}/messages/${data[0]?.messageId}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(await largest.text()).toContain('"payload":{"id":9223372036854775807,"name":"Largest"}');
    },
    budget(4),
  );

  it(
    "names every line it cannot publish and sends nothing (exit 1)",
    async () => {
      const path = file("broken.ndjson", [
        '{"id":1,"name":"Fern"}',
        '{"id":2,"name":"Fern"}',
        "{not json",
        '{"id":4,"name":"Fern"}',
        '{"id":5}',
        '{"payload":{"id":6,"name":"Fern"},"idempotencyKey":" spaced"}',
        '{"payload":{"id":7,"name":"Fern"},"priority":1}',
      ]);
      const before = await stored();
      const r = await cli(["publish", "--file", path], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("4 lines of the file cannot be published; nothing was sent");
      for (const line of [3, 5, 6, 7]) expect(r.stderr).toMatch(new RegExp(`^line ${line}: `, "m"));
      expect(r.stderr).toMatch(/^line 5: newPlant \/name: /m);
      expect(await stored()).toBe(before);
    },
    budget(1),
  );

  it(
    "reports a batch the sender refuses by line, and what was stored before it (exit 1)",
    async () => {
      const taken = await cli(["publish", "--id", "1", "--name", "Fern", "--idempotency-key", "taken"], {
        env,
      });
      expect(taken.code, taken.stderr).toBe(0);
      const before = await stored();
      const lines = Array.from({ length: MAX_BATCH_EVENTS + 3 }, (_, i) =>
        JSON.stringify({ id: i, name: "Fern" }),
      );
      lines[MAX_BATCH_EVENTS + 1] = '{"payload":{"id":2,"name":"Other"},"idempotencyKey":"taken"}';
      const r = await cli(["publish", "--file", file("reused.jsonl", lines)], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `The sender refused the batch of lines ${MAX_BATCH_EVENTS + 1}–${MAX_BATCH_EVENTS + 3} (422)`,
      );
      expect(r.stderr).toMatch(
        new RegExp(`^line ${MAX_BATCH_EVENTS + 2}: /idempotencyKey: .*different event`, "m"),
      );
      expect(r.stderr).toContain(`${MAX_BATCH_EVENTS} events (lines 1–${MAX_BATCH_EVENTS}) were published`);
      expect((await stored()) - before).toBe(MAX_BATCH_EVENTS);
    },
    budget(2),
  );

  it(
    "reads stdin with --ndjson; refuses --idempotency-key beside a file of events (exit 2)",
    async () => {
      const input = '{"id":1,"name":"Fern"}\n{"payload":{"id":2,"name":"Moss"}}\n';
      const r = await cli(["publish", "--file", "-", "--ndjson"], { env, input });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Published 2 events");
      const keyed = await cli(["publish", "--file", "-", "--ndjson", "--idempotency-key", "k"], {
        env,
        input,
      });
      expect(keyed.code).toBe(2);
      expect(keyed.stderr).toContain("each line its own idempotencyKey");
    },
    budget(2),
  );
});
