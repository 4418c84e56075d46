// What the rows of a delivery cost PostgreSQL alone (issue 47), by schema variant: one backend leases 64 deliveries,
// records their outcomes and inserts their attempt rows, batch after batch, over N deliveries of a 10-subscription
// backlog in a scratch database (created and dropped); prints the backend's CPU per delivery (/proc) and WAL records.
//   PLANT_STORE_TEST_PG_URL=postgres://… node bench/pg-row-cost.mjs <variant>     (N, default 20000)
//   for v in base notrig nomsgidx nosubidx hot-ff70 collc hashmsg noattfk; do node bench/pg-row-cost.mjs $v; done
// The table is a copy of the deliveries part of the PostgreSQL migrations 1–2 (columns, indexes, the count trigger),
// with one column more for the HOT variant's lease.
// Variants (combinable): base (the deliveries table as migrated: four indexes, the count trigger), notrig (no count
// trigger), nomsgidx / nosubidx (without deliveries_message_idx / deliveries_subscription_idx), hot-ff70 (the lease
// written to a column in no index, fillfactor 70, so it can be a HOT update), collc (the text columns in an index
// with the "C" collation: byte order, no locale comparison), hashmsg (deliveries_message_idx a hash index), noattfk (no
// foreign key from delivery_attempts to deliveries: no check per attempt row).
import { readFileSync } from "node:fs";
import pg from "pg";

const N = Number(process.env.N ?? 20000),
  B = 64;
const variant = process.argv[2] ?? "base";
if (N % 10 !== 0) throw new Error(`N must be a multiple of 10 (ten subscriptions per message): ${N}`);
const server = process.env.PLANT_STORE_BENCH_PG_URL ?? process.env.PLANT_STORE_TEST_PG_URL;
if (!server) {
  console.log("bench/pg-row-cost.mjs: skipped, set PLANT_STORE_TEST_PG_URL to a PostgreSQL server.");
  process.exit(0);
}
const at = (name) => Object.assign(new URL(server), { pathname: `/${name}` }).href;
const admin = new pg.Client(at("postgres"));
await admin.connect();
await admin.query("DROP DATABASE IF EXISTS plant_store_bench_row_cost");
await admin.query("CREATE DATABASE plant_store_bench_row_cost");
const c = new pg.Client(at("plant_store_bench_row_cost"));
await c.connect();
const ff = variant.includes("ff70") ? "WITH (fillfactor = 70)" : "";
const t = variant.includes("collc") ? 'text COLLATE "C"' : "text";
await c.query(`
CREATE TABLE subscriptions (id ${t} PRIMARY KEY);
CREATE TABLE messages (id ${t} PRIMARY KEY, body bytea);
CREATE TABLE deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id ${t} NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  subscription_id ${t} NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  state ${t} NOT NULL CHECK (state IN ('pending','leased','delivered','failed')),
  due_at bigint NOT NULL, attempts integer NOT NULL DEFAULT 0, lease_owner text, lease_token text,
  last_status integer, last_error text, created_at bigint NOT NULL, updated_at bigint NOT NULL, finished_at bigint,
  lease_until bigint
) ${ff};
CREATE INDEX deliveries_due_idx ON deliveries (due_at, id) WHERE state IN ('pending', 'leased');
${variant.includes("nosubidx") ? "" : "CREATE INDEX deliveries_subscription_idx ON deliveries (subscription_id, state, created_at);"}
${variant.includes("nomsgidx") ? "" : `CREATE INDEX deliveries_message_idx ON deliveries${variant.includes("hashmsg") ? " USING hash" : ""} (message_id);`}
CREATE TABLE delivery_attempts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL ${variant.includes("noattfk") ? "" : "REFERENCES deliveries (id) ON DELETE CASCADE"}, attempt integer NOT NULL,
  attempted_at bigint NOT NULL, status integer, latency_ms integer NOT NULL, response_body text, error text, worker_id text);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, id);
CREATE TABLE delivery_counts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, state text NOT NULL, delta bigint NOT NULL);
CREATE FUNCTION cu() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO delivery_counts (state, delta) SELECT state, sum(delta) FROM (
    SELECT state, 1 AS delta FROM new_rows UNION ALL SELECT state, -1 FROM old_rows) ch GROUP BY state HAVING sum(delta) <> 0;
  RETURN NULL; END $$;
${variant.includes("notrig") ? "" : "CREATE TRIGGER cu AFTER UPDATE ON deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cu();"}
INSERT INTO subscriptions SELECT 'sub_' || g FROM generate_series(1, 10) g;
INSERT INTO messages SELECT 'msg_' || g, '\\x00' FROM generate_series(1, ${N / 10}) g;
INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT 'msg_' || m, 'sub_' || s, 'pending', m, m, m FROM generate_series(1, ${N / 10}) m, generate_series(1, 10) s;
`);
await c.query("VACUUM ANALYZE");
const pid = (await c.query("SELECT pg_backend_pid() AS p")).rows[0].p;
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(f[11]) + Number(f[12]);
};
const hot = variant.includes("hot");
const leaseSql = hot
  ? "UPDATE deliveries SET lease_until = $2, lease_owner = 'w', lease_token = 't', updated_at = 1 WHERE id = ANY($1::bigint[])"
  : "UPDATE deliveries SET state = 'leased', due_at = $2, lease_owner = 'w', lease_token = 't', updated_at = 1 WHERE id = ANY($1::bigint[])";
const t0 = ticks();
// A backend reports its statistics lazily: force the report at the end of the next transaction, then read.
const flushed = async () => {
  await c.query("SELECT pg_stat_force_next_flush()");
  await c.query("SELECT 1");
};
await flushed();
const w0 = (await c.query("SELECT wal_records FROM pg_stat_wal")).rows[0].wal_records;
for (let i = 1; i <= N; i += B) {
  const ids = Array.from({ length: B }, (_, k) => i + k).filter((x) => x <= N);
  await c.query({ name: "l", text: leaseSql, values: [ids, 10 ** 12] });
  await c.query({
    name: "o",
    text: "UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, last_status = 204, lease_owner = NULL, lease_token = NULL, finished_at = 2, updated_at = 2 WHERE id = ANY($1::bigint[])",
    values: [ids],
  });
  await c.query({
    name: "a",
    text: "INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status, latency_ms, worker_id) SELECT x, 1, 2, 204, 1, 'w' FROM unnest($1::bigint[]) x",
    values: [ids],
  });
}
const t1 = ticks();
await flushed();
const w1 = (await c.query("SELECT wal_records FROM pg_stat_wal")).rows[0].wal_records;
const st = (
  await c.query("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'deliveries'")
).rows[0];
console.log(
  variant.padEnd(24),
  "backend µs/delivery",
  (((t1 - t0) * 10000) / N).toFixed(1),
  "WAL rec",
  ((w1 - w0) / N).toFixed(1),
  "upd",
  st.n_tup_upd,
  "hot",
  st.n_tup_hot_upd,
);
await c.end();
await admin.query("DROP DATABASE plant_store_bench_row_cost");
await admin.end();
