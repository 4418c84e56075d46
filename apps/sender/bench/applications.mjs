// Publishing cost with applications: CPU time per delivery of publishes through the store's own publish, on a
// SQLite file, in one process (nothing else runs in it), each shape (application-shapes.mjs) in a fresh file.
// Each shape is measured in rounds, alternating, after a warm-up; the figure is the median round's CPU time
// (user + system) per delivery.
//   node bench/applications.mjs [publishes per round] [rounds]
// BENCH_BACKEND=postgres: each shape in its own schema of a fresh database (plant_store_bench_apps on
// PLANT_STORE_TEST_PG_URL's server, or PLANT_STORE_BENCH_PG_URL), and the CPU time counted is this process's plus
// that of every PostgreSQL backend serving the database (/proc, clock ticks).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@plant-store/store";
import pg from "pg";
import { isWide, publish, SHAPES, SLICE, shaped } from "./application-shapes.mjs";
import { recreateDatabase, ticks } from "./fill.mjs";

const PER_ROUND = Number(process.argv[2] ?? 4000);
const ROUNDS = Number(process.argv[3] ?? 5);

const testPg = process.env.PLANT_STORE_TEST_PG_URL;
const pgUrl =
  process.env.BENCH_BACKEND === "postgres" &&
  (process.env.PLANT_STORE_BENCH_PG_URL ??
    (testPg && Object.assign(new URL(testPg), { pathname: "/plant_store_bench_apps" }).href));
if (process.env.BENCH_BACKEND === "postgres" && !pgUrl) throw new Error("set PLANT_STORE_TEST_PG_URL");
if (pgUrl) await recreateDatabase(pgUrl);
const watcher = pgUrl ? new pg.Client({ connectionString: pgUrl }) : null;
await watcher?.connect();

async function open(dir, name) {
  const options = pgUrl
    ? { url: pgUrl, schema: `bench_${name.replace("-", "_")}` }
    : { url: join(dir, `${name}.db`) };
  return openStore({ ...options, logger: { warn() {} } });
}

/** CPU µs so far of the PostgreSQL backends serving the bench's database (none on SQLite). */
async function backendsCpu() {
  if (!watcher) return new Map();
  const { rows } = await watcher.query(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return new Map(rows.map((r) => [r.pid, ticks(r.pid) * 10_000]));
}

const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-apps-"));
const shapes = SHAPES;
try {
  const targets = {};
  for (const shape of shapes) {
    targets[shape] = await shaped(await open(dir, shape), shape);
    await publish(targets[shape], isWide(shape) ? 200 : 2000, 0); // warm-up
  }
  const perDelivery = Object.fromEntries(shapes.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of shapes) {
      const n = isWide(shape) ? Math.max(SLICE, PER_ROUND / 100) : PER_ROUND;
      const backends = await backendsCpu();
      const before = process.cpuUsage();
      const deliveries = await publish(targets[shape], n, (round + 1) * 1_000_000);
      const used = process.cpuUsage(before);
      let server = 0;
      for (const [pid, cpu] of await backendsCpu()) server += cpu - (backends.get(pid) ?? cpu);
      perDelivery[shape].push((used.user + used.system + server) / deliveries);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = Object.fromEntries(shapes.map((s) => [s, Number(median(perDelivery[s]).toFixed(2))]));
  console.log(
    JSON.stringify({
      backend: pgUrl ? "postgres" : "sqlite",
      node: process.version,
      perRound: PER_ROUND,
      rounds: ROUNDS,
      usPerDelivery: result,
    }),
  );
  for (const target of Object.values(targets)) await target.store.close();
} finally {
  await watcher?.end();
  rmSync(dir, { recursive: true, force: true });
}
