import type { Pool, QueryConfig } from "pg";
import { StoreConfigError } from "../errors.js";
import { holdClient } from "./held-client.js";

/** One schema step, as SQL for a given (quoted) schema. Never edit a released one: append. */
export interface PgMigration {
  version: number;
  name: string;
  sql: (s: string) => string;
}

/**
 * PostgreSQL schema history; every name is qualified with the store's schema, so statements work
 * on a caller's connection whatever its search_path. Times are int8 milliseconds since the epoch.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "inbox, subscriptions, outbox",
    sql: (s) => `
CREATE TABLE ${s}.inbox_events (
  seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id   text   NOT NULL UNIQUE,
  body         bytea  NOT NULL,
  headers      jsonb  NOT NULL,
  received_at  bigint NOT NULL,
  processed_at bigint
);
CREATE INDEX inbox_events_unprocessed_idx ON ${s}.inbox_events (seq) WHERE processed_at IS NULL;

CREATE TABLE ${s}.subscriptions (
  id              text    PRIMARY KEY,
  url             text    NOT NULL,
  token           text    NOT NULL,
  secrets         jsonb   NOT NULL DEFAULT '[]',
  enabled         boolean NOT NULL DEFAULT true,
  disabled_reason text,
  disabled_at     bigint,
  failing_since   bigint,
  created_at      bigint  NOT NULL,
  updated_at      bigint  NOT NULL
);
CREATE INDEX subscriptions_failing_idx ON ${s}.subscriptions (failing_since) WHERE enabled;

CREATE TABLE ${s}.messages (
  id              text   PRIMARY KEY,
  idempotency_key text   UNIQUE,
  body            bytea  NOT NULL,
  created_at      bigint NOT NULL
);

CREATE TABLE ${s}.deliveries (
  id              bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id      text    NOT NULL REFERENCES ${s}.messages (id) ON DELETE CASCADE,
  subscription_id text    NOT NULL REFERENCES ${s}.subscriptions (id) ON DELETE CASCADE,
  state           text    NOT NULL CHECK (state IN ('pending', 'leased', 'delivered', 'failed')),
  due_at          bigint  NOT NULL, -- next claimable time: retry time, or lease expiry while leased
  attempts        integer NOT NULL DEFAULT 0,
  lease_owner     text,
  lease_token     text,
  last_status     integer,
  last_error      text,
  created_at      bigint  NOT NULL,
  updated_at      bigint  NOT NULL,
  finished_at     bigint
);
-- The claim index: only claimable rows, in due order. Expired leases are claimable too.
CREATE INDEX deliveries_due_idx ON ${s}.deliveries (due_at, id) WHERE state IN ('pending', 'leased');
CREATE INDEX deliveries_subscription_idx ON ${s}.deliveries (subscription_id, state, created_at);
CREATE INDEX deliveries_message_idx ON ${s}.deliveries (message_id);

CREATE TABLE ${s}.delivery_attempts (
  id            bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id   bigint  NOT NULL REFERENCES ${s}.deliveries (id) ON DELETE CASCADE,
  attempt       integer NOT NULL,
  attempted_at  bigint  NOT NULL,
  status        integer,
  latency_ms    integer NOT NULL,
  response_body text,
  error         text,
  worker_id     text
);
CREATE INDEX delivery_attempts_delivery_idx ON ${s}.delivery_attempts (delivery_id, id);
`,
  },
  {
    version: 2,
    name: "delivery state counters",
    // Stats must not count a million-row table on every metrics scrape. Concurrent workers must not
    // queue on one counter row either, so each statement appends its deltas (statement triggers
    // with transition tables: one row per statement, not per delivery) and readers compact them.
    sql: (s) => `
CREATE TABLE ${s}.delivery_counts (
  id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  state text   NOT NULL,
  delta bigint NOT NULL
);
INSERT INTO ${s}.delivery_counts (state, delta) SELECT state, count(*) FROM ${s}.deliveries GROUP BY state;

CREATE FUNCTION ${s}.deliveries_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${s}.delivery_counts (state, delta) SELECT state, count(*) FROM new_rows GROUP BY state;
  RETURN NULL;
END $$;
CREATE FUNCTION ${s}.deliveries_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${s}.delivery_counts (state, delta)
    SELECT state, sum(delta) FROM (
      SELECT state, 1 AS delta FROM new_rows UNION ALL SELECT state, -1 FROM old_rows
    ) changes GROUP BY state HAVING sum(delta) <> 0;
  RETURN NULL;
END $$;
CREATE FUNCTION ${s}.deliveries_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${s}.delivery_counts (state, delta) SELECT state, -count(*) FROM old_rows GROUP BY state;
  RETURN NULL;
END $$;
CREATE TRIGGER deliveries_count_insert AFTER INSERT ON ${s}.deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${s}.deliveries_count_insert();
CREATE TRIGGER deliveries_count_update AFTER UPDATE ON ${s}.deliveries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${s}.deliveries_count_update();
CREATE TRIGGER deliveries_count_delete AFTER DELETE ON ${s}.deliveries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${s}.deliveries_count_delete();
`,
  },
  {
    version: 3,
    name: "event types",
    // Rows written before event types existed were all New Plant (the spec's default event): a constant default
    // is stored in the catalog, no table rewrite. `subscriptions.event_types` NULL = every type.
    // No index on inbox_events.event_type: it would cost every inbox write a page, and `list({ type })` walks
    // the primary key newest first, stopping at a page of matches.
    sql: (s) => `
ALTER TABLE ${s}.inbox_events ADD COLUMN event_type text NOT NULL DEFAULT 'newPlant';
ALTER TABLE ${s}.messages ADD COLUMN event_type text NOT NULL DEFAULT 'newPlant';
ALTER TABLE ${s}.subscriptions ADD COLUMN event_types text[];
`,
  },
  {
    version: 4,
    name: "subscription signing scheme",
    sql: (s) => `ALTER TABLE ${s}.subscriptions ADD COLUMN signing text NOT NULL DEFAULT 'symmetric'
  CHECK (signing IN ('symmetric', 'asymmetric', 'both'));`,
  },
  {
    version: 5,
    name: "message trace context",
    // The W3C trace context (traceparent/tracestate as a JSON object) of the publish, so every attempt continues
    // its trace. NULL when nothing was traced: no default, no table rewrite.
    sql: (s) => `ALTER TABLE ${s}.messages ADD COLUMN trace_context text;`,
  },
  {
    version: 6,
    name: "targets: destinations and endpoint options",
    // The same as SQLite's migration 8 (see there). The trigger locks the forwarded message's row first, so two
    // workers delivering its last two deliveries at once serialise there, and the second sees the first's outcome.
    sql: (s) => `
ALTER TABLE ${s}.subscriptions ADD COLUMN name text;
ALTER TABLE ${s}.subscriptions ADD COLUMN paused boolean NOT NULL DEFAULT false;
ALTER TABLE ${s}.subscriptions ADD COLUMN ordered boolean NOT NULL DEFAULT false;
ALTER TABLE ${s}.subscriptions ADD COLUMN max_in_flight integer;
ALTER TABLE ${s}.subscriptions ADD COLUMN rate_limit double precision;
ALTER TABLE ${s}.subscriptions ADD COLUMN next_send_at bigint NOT NULL DEFAULT 0;
ALTER TABLE ${s}.subscriptions ADD COLUMN headers jsonb;
ALTER TABLE ${s}.subscriptions ADD COLUMN timeout_ms integer;
CREATE UNIQUE INDEX subscriptions_name_idx ON ${s}.subscriptions (name) WHERE name IS NOT NULL;
ALTER TABLE ${s}.messages ADD COLUMN inbox_seq bigint;
CREATE FUNCTION ${s}.deliveries_forwarded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM ${s}.messages WHERE id = NEW.message_id FOR UPDATE;
  UPDATE ${s}.inbox_events SET processed_at = NEW.updated_at
  WHERE seq = (SELECT inbox_seq FROM ${s}.messages WHERE id = NEW.message_id) AND processed_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM ${s}.deliveries WHERE message_id = NEW.message_id AND state <> 'delivered');
  RETURN NULL;
END $$;
CREATE TRIGGER deliveries_forwarded AFTER UPDATE OF state ON ${s}.deliveries
  FOR EACH ROW WHEN (NEW.state = 'delivered' AND left(NEW.message_id, 3) = 'in_')
  EXECUTE FUNCTION ${s}.deliveries_forwarded();
`,
  },
  {
    version: 7,
    name: "applications",
    // As SQLite's migration 9 (applications): existing subscriptions move to the default application; a message
    // published to one application names it and its idempotency key is stored scoped, so UNIQUE keeps serving.
    sql: (s) => `
CREATE TABLE ${s}.applications (
  id           text    PRIMARY KEY,
  uid          text    NOT NULL UNIQUE,
  name         text    NOT NULL,
  metadata     jsonb   NOT NULL DEFAULT '{}',
  portal_epoch integer NOT NULL DEFAULT 0,
  created_at   bigint  NOT NULL,
  updated_at   bigint  NOT NULL
);
INSERT INTO ${s}.applications (id, uid, name, created_at, updated_at)
  VALUES ('app_default', 'default', 'Default', (extract(epoch FROM now()) * 1000)::bigint,
          (extract(epoch FROM now()) * 1000)::bigint),
         ('app_operator', 'operator', 'Operator', (extract(epoch FROM now()) * 1000)::bigint + 1,
          (extract(epoch FROM now()) * 1000)::bigint + 1);
ALTER TABLE ${s}.subscriptions
  ADD COLUMN application_id text DEFAULT 'app_default' REFERENCES ${s}.applications (id),
  ADD COLUMN uid text,
  ADD COLUMN description text NOT NULL DEFAULT '',
  ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
-- A receiver's destination (dst_…) belongs to no customer's application, so no application's read reaches it.
UPDATE ${s}.subscriptions SET application_id = NULL WHERE left(id, 4) = 'dst_';
CREATE INDEX subscriptions_application_idx ON ${s}.subscriptions (application_id, id);
CREATE UNIQUE INDEX subscriptions_uid_idx ON ${s}.subscriptions (application_id, uid) WHERE uid IS NOT NULL;
ALTER TABLE ${s}.messages ADD COLUMN application_id text;
CREATE TABLE ${s}.portal_tokens (
  hash           text    PRIMARY KEY, -- hex SHA-256 of the token; the token itself is never stored
  application_id text    NOT NULL REFERENCES ${s}.applications (id) ON DELETE CASCADE,
  epoch          integer NOT NULL,
  expires_at     bigint  NOT NULL,
  created_at     bigint  NOT NULL
);
CREATE INDEX portal_tokens_application_idx ON ${s}.portal_tokens (application_id);
CREATE TABLE ${s}.application_deletions (
  seq           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id            text    NOT NULL,
  uid           text    NOT NULL,
  name          text    NOT NULL,
  subscriptions integer NOT NULL,
  deleted_at    bigint  NOT NULL
);
`,
  },
  {
    version: 8,
    name: "attempts and deliveries without a foreign-key check on their message",
    // Every attempt row is inserted by the outcome statement alone, for a delivery whose row that statement holds
    // locked (FOR UPDATE); every delivery row by a statement that inserts its message too. The foreign keys' checks
    // per row (a query and a KEY SHARE lock each) prove nothing there; their cascades are kept by statement triggers
    // (docs/decisions.md, "Attempt and delivery rows are checked by their writers"). Dropping a key changes no data;
    // it holds the tables' locks only for the catalog change. The subscription key stays: publishing reads
    // subscriptions that another transaction may be deleting, and its check is what orders the two.
    sql: (s) => `
ALTER TABLE ${s}.delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
ALTER TABLE ${s}.deliveries DROP CONSTRAINT deliveries_message_id_fkey;
${cascadeSql(s, "messages_deliveries_cascade", "messages", "deliveries", "message_id")}
${cascadeSql(s, "deliveries_attempts_cascade", "deliveries", "delivery_attempts", "delivery_id")}
`,
  },
];

/**
 * A foreign key's ON DELETE CASCADE as a statement trigger (migration 8): deleting `parent` rows deletes the `child`
 * rows whose `column` names them, in one statement. Migration 8's text: never change it.
 */
function cascadeSql(s: string, name: string, parent: string, child: string, column: string): string {
  return `CREATE FUNCTION ${s}.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ${s}.${child} WHERE ${column} IN (SELECT id FROM old_rows);
  RETURN NULL;
END $$;
CREATE TRIGGER ${name} AFTER DELETE ON ${s}.${parent}
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${s}.${name}();`;
}

/** The newest schema version this package knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** `"name"` with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Applies pending migrations in one transaction under an advisory lock keyed by the schema, so
 * several instances starting at once apply each migration exactly once. Idempotent.
 *
 * @example
 * ```ts
 * await migratePg(pool, "plant_store", { apply: true, now: Date.now }); // [1, 2], then []
 * ```
 */
export async function migratePg(
  pool: Pool,
  schema: string,
  options: { apply: boolean; now: () => number; logger?: { warn(message: string): void } },
): Promise<number[]> {
  const s = quoteIdent(schema);
  const held = await holdClient(pool);
  const { client } = held;
  // No client-side read timeout (the pool's bounds ordinary statements): a migration may take as long as it needs.
  const run = (text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout: 2 ** 31 - 1 } as QueryConfig);
  let broken: Error | undefined;
  try {
    await run("BEGIN");
    // A migration may wait for another instance's and take as long as it needs: no lock or statement limit.
    await run("SET LOCAL lock_timeout = 0");
    await run("SET LOCAL statement_timeout = 0");
    if (options.apply) {
      const key = `plant_store:${schema}`;
      const got = await run("SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got", [key]);
      if (!got.rows[0]?.got) {
        options.logger?.warn(
          `plant-store: waiting for another process that is migrating schema ${schema} (advisory lock).`,
        );
        await run("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
      }
    }
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when it exists.
    const exists = await run("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (exists.rowCount === 0 && options.apply) await run(`CREATE SCHEMA ${s}`);
    if (options.apply) {
      await run(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
  version    integer PRIMARY KEY,
  name       text    NOT NULL,
  applied_at bigint  NOT NULL
)`);
    }
    const table = await run("SELECT to_regclass($1) AS t", [`${s}.schema_migrations`]);
    const applied = new Set<number>(
      table.rows[0]?.t
        ? (await run(`SELECT version FROM ${s}.schema_migrations`)).rows.map((r) => Number(r.version))
        : [],
    );
    const newest = Math.max(0, ...applied);
    if (newest > PG_SCHEMA_VERSION) {
      throw new StoreConfigError(
        "schema_too_new",
        `The database schema is at version ${newest} but this @plant-store/store knows up to ${PG_SCHEMA_VERSION}; upgrade the package.`,
      );
    }
    const pending = PG_MIGRATIONS.filter((m) => !applied.has(m.version));
    if (pending.length > 0 && !options.apply) {
      throw new StoreConfigError(
        "schema_outdated",
        `The database schema lacks migrations ${pending.map((m) => m.version).join(", ")}; open it with migrate enabled.`,
      );
    }
    for (const m of pending) {
      await run(m.sql(s));
      await run(`INSERT INTO ${s}.schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`, [
        m.version,
        m.name,
        options.now(),
      ]);
    }
    await run("COMMIT");
    return pending.map((m) => m.version);
  } catch (error) {
    await run("ROLLBACK").catch((e: Error) => {
      broken = e;
    });
    throw error;
  } finally {
    held.release(broken);
  }
}
