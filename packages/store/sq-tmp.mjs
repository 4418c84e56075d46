import Database from "better-sqlite3";
const variant = process.argv[2];
const db = new Database(":memory:");
db.pragma("synchronous = FULL");
const auto = variant === "noauto" ? "" : "AUTOINCREMENT";
db.exec(`CREATE TABLE inbox_events (seq INTEGER PRIMARY KEY ${auto}, webhook_id TEXT NOT NULL UNIQUE, body BLOB NOT NULL, headers TEXT NOT NULL, received_at INTEGER NOT NULL, processed_at INTEGER)`);
if (variant !== "nopartial") db.exec(`CREATE INDEX inbox_events_unprocessed_idx ON inbox_events (seq) WHERE processed_at IS NULL`);
const insert = db.prepare(`INSERT INTO inbox_events (webhook_id, body, headers, received_at) VALUES (?, ?, ?, ?) ON CONFLICT (webhook_id) DO NOTHING`);
const tx = db.transaction((rows) => rows.map((r) => { const x = insert.run(r[0], r[1], r[2], r[3]); return x.changes; }));
const body = Buffer.from('{"id":1234,"name":"Monstera deliciosa","tag":"tropical"}');
const headers = JSON.stringify({ "webhook-id": "run0_3_123456", "webhook-timestamp": "1763900000", "webhook-signature": "v1,abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=", "content-type": "application/json", "user-agent": "autocannon" });
const N = 200000, B = 20;
const t0 = process.cpuUsage();
for (let i = 0; i < N; i += B) {
  const rows = [];
  for (let k = 0; k < B; k++) rows.push([`run0_3_${i + k}`, body, headers, Date.now()]);
  tx.immediate(rows);
}
const u = process.cpuUsage(t0);
console.log(variant, ((u.user + u.system) / N).toFixed(2), "µs/row");
