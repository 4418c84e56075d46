import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCatalog, type Catalog, catalog } from "@plant-store/spec";
import Database from "better-sqlite3";
import pg from "pg";
import { type OpenStoreOptions, openStore, type Store } from "../../src/index.js";
import { quoteIdent } from "../../src/pg/migrations.js";

/** Store options a test may set; the backend decides where the data lives. */
export type TestStoreOptions = Omit<OpenStoreOptions, "url" | "schema" | "pool">;

/**
 * One fresh database per test (a temp file or a new PostgreSQL schema), with raw SQL access for
 * assertions the public API does not expose.
 */
export interface TestBackend {
  readonly kind: "sqlite" | "postgres";
  /** PostgreSQL: the schema its stores live in (another process may open it too). */
  readonly schema?: string;
  /** Opens another store on the same database (another connection / pool). */
  open(options?: TestStoreOptions): Promise<Store>;
  /**
   * Raw SQL on a separate connection. `{t}` becomes the table prefix, `{schema}` the schema name
   * as a literal (PostgreSQL); `?` are parameters.
   */
  sql(text: string, params?: unknown[]): Promise<any[]>;
  /** The query plan of `text` as one string. */
  explain(text: string, params?: unknown[]): Promise<string>;
  /** Runs a fixture file (`{{schema}}` replaced) with the raw connection. */
  loadFixture(file: string): Promise<void>;
  /** Closes the stores it opened and removes the database. */
  cleanup(): Promise<void>;
}

export const PG_URL = process.env.PLANT_STORE_TEST_PG_URL;
const fixtures = new URL("../fixtures/", import.meta.url);

export function sqliteBackend(): TestBackend {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-test-"));
  const file = join(dir, "store.db");
  const stores: Store[] = [];
  let raw: Database.Database | undefined;
  const conn = () => {
    raw ??= new Database(file);
    raw.pragma("busy_timeout = 5000");
    return raw;
  };
  return {
    kind: "sqlite",
    async open(options = {}) {
      const store = await openStore({ logger: { warn() {} }, ...options, url: file });
      stores.push(store);
      return store;
    },
    async sql(text, params = []) {
      const statement = conn().prepare(text.replaceAll("{t}", ""));
      return statement.reader ? statement.all(...params) : [statement.run(...params)];
    },
    async explain(text, params = []) {
      const rows = conn()
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all(...params) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    },
    async loadFixture(name) {
      conn().exec(readFileSync(new URL(name, fixtures), "utf8"));
    },
    async cleanup() {
      await Promise.all(stores.map((s) => s.close()));
      raw?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function pgBackend(url: string): TestBackend {
  const schema = `plant_store_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const s = quoteIdent(schema);
  const raw = new pg.Pool({ connectionString: url, max: 3 });
  const stores: Store[] = [];
  const toPg = (text: string) => {
    let n = 0;
    return text
      .replaceAll("{t}", `${s}.`)
      .replaceAll("{schema}", `'${schema}'`)
      .replace(/\?/g, () => `$${++n}`);
  };
  return {
    kind: "postgres",
    schema,
    async open(options = {}) {
      const store = await openStore({ logger: { warn() {} }, ...options, url, schema });
      stores.push(store);
      return store;
    },
    async sql(text, params = []) {
      return (await raw.query(toPg(text), params)).rows;
    },
    async explain(text, params = []) {
      const rows = (await raw.query(`EXPLAIN ${text}`, params)).rows as { "QUERY PLAN": string }[];
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    },
    async loadFixture(name) {
      await raw.query(readFileSync(new URL(name, fixtures), "utf8").replaceAll("{{schema}}", s));
    },
    async cleanup() {
      await Promise.all(stores.map((st) => st.close()));
      await raw.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await raw.end();
    },
  };
}

/** The backends to run the conformance suite against: SQLite always, PostgreSQL when configured. */
export const BACKENDS: { name: string; create: () => TestBackend; skip: boolean }[] = [
  { name: "SQLite", create: sqliteBackend, skip: false },
  { name: "PostgreSQL", create: () => pgBackend(PG_URL as string), skip: !PG_URL },
];

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2025, 0, 1)) {
  const clock = {
    t: start,
    now: () => clock.t,
    advance(ms: number) {
      clock.t += ms;
    },
  };
  return clock;
}

export const NEW_PLANT = (id: number, name = "Fern") => JSON.stringify({ id, name });

/** A second webhook, for event type tests: an int64 and a number, nothing of New Plant's shape. */
export const PLANT_SOLD = (plantId: number | bigint, price = 12.5) => ({ plantId, price });

/** The spec's catalog plus `plantSold` (read by `buildCatalog` from a document, as an app given `--spec` does). */
export const TEST_CATALOG: Catalog = [
  ...catalog,
  ...buildCatalog({
    openapi: "3.1.0",
    webhooks: {
      "/plant/sold": {
        post: {
          operationId: "plantSold",
          summary: "Plant Sold",
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["plantId", "price"],
                  properties: {
                    plantId: { type: "integer", format: "int64" },
                    price: { type: "number", minimum: 0 },
                  },
                },
              },
            },
          },
          responses: { "200": { description: "Received." } },
        },
      },
    },
  }),
];
