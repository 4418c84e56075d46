import type Database from "better-sqlite3";
import { StoreConfigError } from "../errors.js";

/** One schema step. Never edit a released migration: append a new one. */
export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * SQLite schema history. Times are integer milliseconds since the epoch (the same in both
 * backends, so the clock can be injected in tests).
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: "inbox, subscriptions, outbox",
    sql: `
CREATE TABLE inbox_events (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT, -- AUTOINCREMENT: never reused, so stream positions stay valid
  webhook_id   TEXT    NOT NULL UNIQUE,
  body         BLOB    NOT NULL,
  headers      TEXT    NOT NULL,
  received_at  INTEGER NOT NULL,
  processed_at INTEGER
);
CREATE INDEX inbox_events_unprocessed_idx ON inbox_events (seq) WHERE processed_at IS NULL;

CREATE TABLE subscriptions (
  id              TEXT    PRIMARY KEY,
  url             TEXT    NOT NULL,
  token           TEXT    NOT NULL,
  secrets         TEXT    NOT NULL DEFAULT '[]',
  enabled         INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  disabled_at     INTEGER,
  failing_since   INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX subscriptions_failing_idx ON subscriptions (failing_since) WHERE enabled = 1;

CREATE TABLE messages (
  id              TEXT    PRIMARY KEY,
  idempotency_key TEXT    UNIQUE,
  body            BLOB    NOT NULL,
  created_at      INTEGER NOT NULL
);

CREATE TABLE deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id      TEXT    NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  subscription_id TEXT    NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  state           TEXT    NOT NULL CHECK (state IN ('pending', 'leased', 'delivered', 'failed')),
  due_at          INTEGER NOT NULL, -- next claimable time: retry time, or lease expiry while leased
  attempts        INTEGER NOT NULL DEFAULT 0,
  lease_owner     TEXT,
  lease_token     TEXT,
  last_status     INTEGER,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  finished_at     INTEGER
);
-- The claim index: only claimable rows, in due order. Expired leases are claimable too.
CREATE INDEX deliveries_due_idx ON deliveries (due_at, id) WHERE state IN ('pending', 'leased');
CREATE INDEX deliveries_subscription_idx ON deliveries (subscription_id, state, created_at);
CREATE INDEX deliveries_message_idx ON deliveries (message_id);

CREATE TABLE delivery_attempts (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id   INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt       INTEGER NOT NULL,
  attempted_at  INTEGER NOT NULL,
  status        INTEGER,
  latency_ms    INTEGER NOT NULL,
  response_body TEXT,
  error         TEXT,
  worker_id     TEXT
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, id);
`,
  },
  {
    version: 2,
    name: "delivery state counters",
    // Stats must not count a million-row table on every metrics scrape; counters kept by triggers
    // make them O(1). Backfilled from the rows a v1 database already has.
    sql: `
CREATE TABLE delivery_counts (
  state TEXT    PRIMARY KEY,
  n     INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO delivery_counts (state, n)
  SELECT s.state, (SELECT count(*) FROM deliveries d WHERE d.state = s.state)
  FROM (SELECT 'pending' AS state UNION ALL SELECT 'leased' UNION ALL SELECT 'delivered' UNION ALL SELECT 'failed') s;

CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
  UPDATE delivery_counts SET n = n + 1 WHERE state = NEW.state;
END;
CREATE TRIGGER deliveries_count_update AFTER UPDATE OF state ON deliveries WHEN OLD.state <> NEW.state BEGIN
  UPDATE delivery_counts SET n = n - 1 WHERE state = OLD.state;
  UPDATE delivery_counts SET n = n + 1 WHERE state = NEW.state;
END;
CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
  UPDATE delivery_counts SET n = n - 1 WHERE state = OLD.state;
END;
`,
  },
  {
    version: 3,
    name: "event types",
    // Rows written before event types existed were all New Plant (the spec's default event): ADD COLUMN with a
    // constant default rewrites nothing. `subscriptions.event_types` is a JSON array of types, NULL = every type.
    // No index on inbox_events.event_type: it would cost every inbox write a page, and `list({ type })` walks
    // the primary key newest first, stopping at a page of matches.
    sql: `
ALTER TABLE inbox_events ADD COLUMN event_type TEXT NOT NULL DEFAULT 'newPlant';
ALTER TABLE messages ADD COLUMN event_type TEXT NOT NULL DEFAULT 'newPlant';
ALTER TABLE subscriptions ADD COLUMN event_types TEXT;
`,
  },
  {
    version: 4,
    name: "subscription signing scheme",
    sql: `ALTER TABLE subscriptions ADD COLUMN signing TEXT NOT NULL DEFAULT 'symmetric'
  CHECK (signing IN ('symmetric', 'asymmetric', 'both'));`,
  },
  {
    version: 5,
    name: "message trace context",
    // The W3C trace context (traceparent/tracestate as a JSON object) of the publish, so every attempt continues
    // its trace. NULL when nothing was traced: a nullable column without a default, so no table rewrite.
    sql: "ALTER TABLE messages ADD COLUMN trace_context TEXT;",
  },
  {
    version: 6,
    name: "subscription index without state",
    // Every claim and every outcome changes a delivery's state, so an index keyed on it was rewritten twice per
    // delivery, a large part of a delivery's bookkeeping. A
    // subscription's deliveries are listed newest first by (subscription_id, id); its failed ones (`recover`, a list
    // of failures) are in a partial index that only failures enter; `disable` finds its pending ones through the due
    // index (outbox-sql.ts, FAIL_PENDING_OF). A list of one subscription's pending or leased deliveries walks its
    // history newest first until the page is full.
    sql: `
DROP INDEX deliveries_subscription_idx;
CREATE INDEX deliveries_by_subscription_idx ON deliveries (subscription_id, id);
CREATE INDEX deliveries_failed_idx ON deliveries (subscription_id, id) WHERE state = 'failed';
`,
  },
  {
    version: 7,
    name: "delivery state counters by transition",
    // The counters of migration 2 took two UPDATEs per state change (one state down, one up), two changes per
    // delivery (claim, outcome). Here a change is ONE UPDATE of the row counting its transition
    // (from '' = created, to '' = deleted), and a state's depth is what entered it minus what left it: a sum over
    // 20 rows, in the view `delivery_counts` that STATE_COUNTS reads (so a process still running an older package
    // keeps reading depth while another migrates the file). Every transition has its row from the start, so an
    // UPDATE never misses. Backfilled by counting the rows (one scan), not from the counters it replaces.
    sql: `
CREATE TABLE delivery_moves (
  from_state TEXT    NOT NULL, -- '' for a delivery created
  to_state   TEXT    NOT NULL, -- '' for a delivery deleted
  n          INTEGER NOT NULL,
  PRIMARY KEY (from_state, to_state)
) WITHOUT ROWID;
WITH states (s) AS (VALUES (''), ('pending'), ('leased'), ('delivered'), ('failed')),
  counted AS MATERIALIZED (SELECT state, count(*) AS n FROM deliveries GROUP BY state)
INSERT INTO delivery_moves (from_state, to_state, n)
  SELECT f.s, t.s, coalesce((SELECT c.n FROM counted c WHERE f.s = '' AND c.state = t.s), 0)
  FROM states f CROSS JOIN states t
  WHERE f.s <> t.s;
DROP TRIGGER deliveries_count_insert;
DROP TRIGGER deliveries_count_update;
DROP TRIGGER deliveries_count_delete;
DROP TABLE delivery_counts;
CREATE VIEW delivery_counts AS SELECT state, sum(n) AS n FROM (
  SELECT to_state AS state, n FROM delivery_moves UNION ALL SELECT from_state, -n FROM delivery_moves
) WHERE state <> '' GROUP BY state;
CREATE TRIGGER deliveries_moves_insert AFTER INSERT ON deliveries BEGIN
  UPDATE delivery_moves SET n = n + 1 WHERE from_state = '' AND to_state = NEW.state;
END;
CREATE TRIGGER deliveries_moves_update AFTER UPDATE OF state ON deliveries WHEN OLD.state <> NEW.state BEGIN
  UPDATE delivery_moves SET n = n + 1 WHERE from_state = OLD.state AND to_state = NEW.state;
END;
CREATE TRIGGER deliveries_moves_delete AFTER DELETE ON deliveries BEGIN
  UPDATE delivery_moves SET n = n + 1 WHERE from_state = OLD.state AND to_state = '';
END;
`,
  },
  {
    version: 8,
    name: "targets: destinations and endpoint options",
    // A receiver's destinations are rows of the same target table as the sender's subscriptions (ids `dst_…` and
    // `sub_…`: the id says whose it is, so each claim takes a key range and never the other's work). Endpoint options
    // any target may have: paused, ordered, at most N in flight, a rate limit (events/s, with the next send time it
    // allows, moved by the claim), headers to add (JSON object), a timeout. A forwarded event is a message without a
    // body of its own: `inbox_seq` names the inbox event whose exact bytes and webhook-id the claim reads. When the
    // last delivery of a forwarded message is delivered, the inbox event is processed (the trigger, in the outcome's
    // transaction).
    sql: `
ALTER TABLE subscriptions ADD COLUMN name TEXT;
ALTER TABLE subscriptions ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN ordered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN max_in_flight INTEGER;
ALTER TABLE subscriptions ADD COLUMN rate_limit REAL;
ALTER TABLE subscriptions ADD COLUMN next_send_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN headers TEXT;
ALTER TABLE subscriptions ADD COLUMN timeout_ms INTEGER;
CREATE UNIQUE INDEX subscriptions_name_idx ON subscriptions (name) WHERE name IS NOT NULL;
ALTER TABLE messages ADD COLUMN inbox_seq INTEGER;
CREATE TRIGGER deliveries_forwarded AFTER UPDATE OF state ON deliveries
WHEN NEW.state = 'delivered' AND substr(NEW.message_id, 1, 3) = 'in_' BEGIN
  UPDATE inbox_events SET processed_at = NEW.updated_at
  WHERE seq = (SELECT inbox_seq FROM messages WHERE id = NEW.message_id) AND processed_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM deliveries WHERE message_id = NEW.message_id AND state <> 'delivered');
END;
`,
  },
  {
    version: 9,
    name: "applications",
    // Every subscription belongs to one application; those that exist move to the default one (`app_default`,
    // uid `default`): ADD COLUMN with a constant default rewrites nothing. `app_operator` (uid `operator`) is the
    // operator's own, whose subscriptions receive the sender's operational webhooks. No foreign key on the new column
    // (SQLite cannot add one with a non-NULL default); deleting an application deletes its subscriptions in the
    // same transaction. A message published to one application names it; its idempotency key is stored scoped
    // (`shared/application-rules.ts`: scopedIdempotencyKey), so the existing UNIQUE column keeps serving. Portal
    // tokens are kept as SHA-256 hashes; bumping an application's `portal_epoch` revokes all of its tokens.
    sql: `
CREATE TABLE applications (
  id           TEXT    PRIMARY KEY,
  uid          TEXT    NOT NULL UNIQUE,
  name         TEXT    NOT NULL,
  metadata     TEXT    NOT NULL DEFAULT '{}',
  portal_epoch INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
INSERT INTO applications (id, uid, name, created_at, updated_at)
  VALUES ('app_default', 'default', 'Default', CAST(strftime('%s', 'now') AS INTEGER) * 1000,
          CAST(strftime('%s', 'now') AS INTEGER) * 1000),
         ('app_operator', 'operator', 'Operator', CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 1,
          CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 1);
ALTER TABLE subscriptions ADD COLUMN application_id TEXT DEFAULT 'app_default';
-- A receiver's destination (dst_…) belongs to no customer's application, so no application's read reaches it.
UPDATE subscriptions SET application_id = NULL WHERE substr(id, 1, 4) = 'dst_';
ALTER TABLE subscriptions ADD COLUMN uid TEXT;
ALTER TABLE subscriptions ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
CREATE INDEX subscriptions_application_idx ON subscriptions (application_id, id);
CREATE UNIQUE INDEX subscriptions_uid_idx ON subscriptions (application_id, uid) WHERE uid IS NOT NULL;
ALTER TABLE messages ADD COLUMN application_id TEXT;
CREATE TABLE portal_tokens (
  hash           TEXT    PRIMARY KEY, -- hex SHA-256 of the token; the token itself is never stored
  application_id TEXT    NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  epoch          INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  created_at     INTEGER NOT NULL
);
CREATE INDEX portal_tokens_application_idx ON portal_tokens (application_id);
CREATE TABLE application_deletions (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT    NOT NULL,
  uid           TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  subscriptions INTEGER NOT NULL,
  deleted_at    INTEGER NOT NULL
);
`,
  },
  {
    version: 10,
    name: "forwards as a cursor over the inbox",
    // A destination's (or consumer's) `forward_seq` is the last inbox seq it has taken: the events after it that its
    // types take are its pending forwards, written by nothing at ingest. The receiver's claim creates their message
    // and delivery rows and moves the cursor in its own transaction (decision 45). A destination that exists starts
    // at the inbox's last seq: the forward rows already written stay and are served as before. An event is processed
    // when its last forward is delivered and no destination that takes its type has still to take it.
    sql: `
ALTER TABLE subscriptions ADD COLUMN forward_seq INTEGER;
UPDATE subscriptions SET forward_seq = (SELECT coalesce(max(seq), 0) FROM inbox_events)
  WHERE substr(id, 1, 4) = 'dst_';
CREATE INDEX subscriptions_forward_idx ON subscriptions (forward_seq) WHERE forward_seq IS NOT NULL;
DROP TRIGGER deliveries_forwarded;
CREATE TRIGGER deliveries_forwarded AFTER UPDATE OF state ON deliveries
WHEN NEW.state = 'delivered' AND substr(NEW.message_id, 1, 3) = 'in_' BEGIN
  UPDATE inbox_events SET processed_at = NEW.updated_at
  WHERE seq = (SELECT inbox_seq FROM messages WHERE id = NEW.message_id) AND processed_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM deliveries WHERE message_id = NEW.message_id AND state <> 'delivered')
    AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.forward_seq < inbox_events.seq
      AND (s.event_types IS NULL
        OR EXISTS (SELECT 1 FROM json_each(s.event_types) WHERE value = inbox_events.event_type)));
END;
`,
  },
];

/** The newest schema version this package knows. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

/**
 * Applies pending migrations in one IMMEDIATE transaction: a second process opening the same file
 * waits for the write lock, then sees them applied. Idempotent.
 *
 * @example
 * ```ts
 * migrateSqlite(db, { apply: true, now: Date.now }); // [1, 2] on a new file, [] afterwards
 * ```
 */
export function migrateSqlite(
  db: Database.Database,
  options: { apply: boolean; now: () => number },
): number[] {
  const run = db.transaction((): number[] => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  applied_at INTEGER NOT NULL
)`);
    const applied = new Set(db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[]);
    const newest = Math.max(0, ...applied);
    if (newest > SQLITE_SCHEMA_VERSION) {
      throw new StoreConfigError(
        "schema_too_new",
        `The database schema is at version ${newest} but this @plant-store/store knows up to ${SQLITE_SCHEMA_VERSION}; upgrade the package.`,
      );
    }
    const pending = SQLITE_MIGRATIONS.filter((m) => !applied.has(m.version));
    if (pending.length > 0 && !options.apply) {
      throw new StoreConfigError(
        "schema_outdated",
        `The database schema lacks migrations ${pending.map((m) => m.version).join(", ")}; open it with migrate enabled.`,
      );
    }
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const m of pending) {
      db.exec(m.sql);
      record.run(m.version, m.name, options.now());
    }
    return pending.map((m) => m.version);
  });
  return run.immediate();
}
