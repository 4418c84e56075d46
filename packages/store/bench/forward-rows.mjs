// What a forward costs SQLite at ingest, without the receiver: `node bench/forward-rows.mjs <variant> <events> [batch]`
// writes <events> inbox events, <batch> per commit (default 1), with the store's pragmas (WAL, synchronous=FULL,
// foreign_keys=ON) and schema, one paused destination. Variants: `inbox` (the event alone: what the receiver writes
// since decision 45's cursor), `current` (the event and its forward rows, by the two statements the receiver ran
// before decision 45, kept here), `notrigger` (the same without the
// state-counter trigger), `lean` (a forward as one row of a table of its own with a due index and a by-destination
// index, no message row, no trigger: the smallest row-per-forward schema). Counted under callgrind, the difference of
// two sizes per event (after `pnpm --filter @plant-store/store build`):
//   for v in inbox current notrigger lean; do for n in 1000 3000; do valgrind --tool=callgrind \
//     --callgrind-out-file=/dev/null node bench/forward-rows.mjs $v $n 2>&1 | grep Collected; done; done
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import Database from "better-sqlite3";
import { migrateSqlite } from "../dist/sqlite/migrations.js";
import { TAKES_ROW_TYPE } from "../dist/sqlite/outbox-sql.js";

/** The forward rows of seqs `from`…`to` as the receiver wrote them at ingest before decision 45 (schema version 9). */
const FORWARD_MESSAGES = `INSERT INTO messages (id, event_type, body, created_at, inbox_seq)
SELECT 'in_' || i.seq, i.event_type, X'', i.received_at, i.seq FROM inbox_events i
WHERE i.seq BETWEEN ? AND ? AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.id >= 'dst_' AND s.id < 'dst\`'
  AND ${TAKES_ROW_TYPE})
ORDER BY i.seq`;
const FORWARD_DELIVERIES = `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
SELECT m.id, s.id, 'pending', m.created_at, m.created_at, m.created_at
FROM inbox_events i JOIN messages m ON m.id = 'in_' || i.seq JOIN subscriptions s ON s.id >= 'dst_' AND s.id < 'dst\`'
WHERE i.seq BETWEEN ? AND ? AND ${TAKES_ROW_TYPE} ORDER BY i.seq, s.id`;

const [variant, nText, batchText = "1"] = process.argv.slice(2);
const n = Number(nText);
const batch = Number(batchText);
const file = `${tmpdir()}/forward-rows-${variant}-${process.pid}.db`;
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.pragma("foreign_keys = ON");
migrateSqlite(db, { apply: true, now: () => Date.now() });
const now = Date.now();
db.prepare(`INSERT INTO subscriptions (id, url, token, secrets, enabled, created_at, updated_at, paused, name)
  VALUES ('dst_1', 'http://x', 't', '[]', 1, ?, ?, 1, 'd1')`).run(now, now);
if (variant === "notrigger" || variant === "lean") db.exec("DROP TRIGGER deliveries_moves_insert");
if (variant === "lean") {
  db.exec(`CREATE TABLE forwards (
    id INTEGER PRIMARY KEY, inbox_seq INTEGER NOT NULL, destination_id TEXT NOT NULL, state TEXT NOT NULL,
    due_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, lease_owner TEXT, lease_token TEXT,
    last_status INTEGER, last_error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER);
  CREATE INDEX forwards_due_idx ON forwards (due_at, id) WHERE state IN ('pending', 'leased');
  CREATE INDEX forwards_by_destination_idx ON forwards (destination_id, id);`);
}
const insertInbox = db.prepare(
  "INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES (?, 'newPlant', ?, '{}', ?)",
);
const messages = db.prepare(FORWARD_MESSAGES);
const deliveries = db.prepare(FORWARD_DELIVERIES);
const lean =
  variant === "lean"
    ? db.prepare(`INSERT INTO forwards (inbox_seq, destination_id, state, due_at, created_at, updated_at)
  SELECT i.seq, s.id, 'pending', i.received_at, i.received_at, i.received_at FROM inbox_events i JOIN subscriptions s
  ON s.id >= 'dst_' AND s.id < 'dst\`' WHERE i.seq BETWEEN ? AND ? ORDER BY i.seq, s.id`)
    : undefined;
const body = Buffer.alloc(400, 97);
const write = db.transaction((k) => {
  let from = 0;
  let to = 0;
  for (let j = 0; j < batch; j++) {
    const seq = Number(insertInbox.run(`msg_${k}_${j}`, body, now).lastInsertRowid);
    if (from === 0) from = seq;
    to = seq;
  }
  if (variant === "inbox") return;
  if (lean) return lean.run(from, to);
  messages.run(from, to);
  deliveries.run(from, to);
});
for (let k = 0; k < n / batch; k++) write.immediate(k);
db.close();
for (const s of ["", "-wal", "-shm"]) rmSync(file + s, { force: true });
