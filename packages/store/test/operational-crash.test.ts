import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { operationalCatalog } from "@plant-store/spec";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { until } from "../../../test-support/processes.js";
import { OPERATOR_APPLICATION_ID, openStore } from "../src/index.js";
import { PG_URL, pgBackend, sqliteBackend, type TestBackend } from "./support/backends.js";
import { spawnChild } from "./support/child.js";

// The operational webhooks are published in the transaction of the change they report (docs/decisions.md D36): a
// process killed at any moment leaves each change with its notice or neither. A child publishes, records 410s and
// failures for good and disables by hand as fast as it can (test/support/operational-child.mjs); it is killed -9
// ROUNDS times at random points once it has finished some turns, then every disabled subscription must have exactly
// one `subscription.disabled`, every delivery failed by its outcome one `delivery.exhausted`, and no notice may
// name a change that is not stored.
const ROUNDS = 2;
const MIN_TURNS = 2;
const SUBSCRIPTIONS = 100;
const TOKEN = "psk_TestTokenValue0001";
const dir = mkdtempSync(join(tmpdir(), "plant-store-operational-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const backends: { name: string; skip: boolean; create: () => { backend: TestBackend; args: string[] } }[] = [
  {
    name: "SQLite",
    skip: false,
    create: () => {
      const file = join(dir, `${randomBytes(4).toString("hex")}.db`);
      return { backend: fileBackend(file), args: [file] };
    },
  },
  {
    name: "PostgreSQL",
    skip: !PG_URL,
    create: () => {
      const backend = pgBackend(PG_URL as string);
      return { backend, args: [PG_URL as string, backend.schema as string] };
    },
  },
];

for (const { name, skip, create } of backends) {
  describe.skipIf(skip)(name, () => {
    it(`keeps each change and its operational notice together across ${ROUNDS} kill -9s`, async () => {
      const { backend, args } = create();
      try {
        const store = await backend.open();
        await store.subscriptions.create({
          applicationId: OPERATOR_APPLICATION_ID,
          url: "https://ops.example/operator",
          token: TOKEN,
          eventTypes: operationalCatalog.map((e) => e.type),
        });
        for (let i = 0; i < SUBSCRIPTIONS; i++)
          await store.subscriptions.create({ url: `https://hooks.example/${i}`, token: TOKEN });
        await store.close();

        const turns: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const run = spawnChild("./operational-child.mjs", args);
          await run.ready;
          await until(() => run.lines.length >= MIN_TURNS, 60_000);
          expect(run.stderr()).toBe("");
          // At a random point after some turns: inside a commit as often as between.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
          run.child.kill("SIGKILL");
          await run.closed;
          turns.push(run.lines.length);
        }
        await checkPairs(backend);
        console.info(`[operational crash] ${name}: turns per round ${turns.join(", ")}`);
      } finally {
        await backend.cleanup();
      }
    }, 300_000);
  });
}

/** Every change has exactly one notice, and every notice a change. */
async function checkPairs(backend: TestBackend): Promise<void> {
  const notices = (
    await backend.sql("SELECT event_type, body FROM {t}messages WHERE application_id = ?", [
      OPERATOR_APPLICATION_ID,
    ])
  ).map((row) => ({
    type: row.event_type as string,
    data: JSON.parse(Buffer.from(row.body).toString()).data,
  }));
  const disabled = (
    await backend.sql(
      "SELECT id FROM {t}subscriptions WHERE NOT (enabled = ?) AND application_id <> ? ORDER BY id",
      [backend.kind === "postgres" ? true : 1, OPERATOR_APPLICATION_ID],
    )
  ).map((row) => row.id as string);
  const reported = notices
    .filter((n) => n.type === "subscription.disabled")
    .map((n) => n.data.subscriptionId as string)
    .sort();
  expect(disabled.length).toBeGreaterThan(0);
  expect(reported).toEqual(disabled);
  // Failed by their own outcome: an attempt counted with the child's 500 (those failed by a disable have none).
  const exhausted = (
    await backend.sql(
      `SELECT d.id FROM {t}deliveries d JOIN {t}subscriptions s ON s.id = d.subscription_id
       WHERE d.state = 'failed' AND d.last_status = 500 AND s.application_id <> ? ORDER BY d.id`,
      [OPERATOR_APPLICATION_ID],
    )
  ).map((row) => Number(row.id));
  const exhaustedNotices = notices
    .filter((n) => n.type === "delivery.exhausted")
    .map((n) => n.data.deliveryId as number)
    .sort((a, b) => a - b);
  expect(exhausted.length).toBeGreaterThan(0);
  expect(exhaustedNotices).toEqual(exhausted);
}

/** A SQLite backend on a file the child opens too. */
function fileBackend(file: string): TestBackend {
  const backend = sqliteBackend();
  return {
    ...backend,
    open: (options) => openStore({ logger: { warn() {} }, ...options, url: file }),
    sql: async (text, params) => {
      const db = new Database(file);
      try {
        const statement = db.prepare(text.replaceAll("{t}", ""));
        return statement.all(...(params ?? []));
      } finally {
        db.close();
      }
    },
  };
}
