// Fills an outbox for the instruction bench, in its own process so that publishing is not counted:
//   node bench/fill.mjs <store url> <sink url> <events> [subscriptions]
// A SQLite path is deleted first; a postgres:// URL names a database that is dropped and created again. One
// subscription (or several, all to the sink) with a bearer token and one signing secret, then <events> New Plant
// events published through the store's own publish. Prints one JSON line: { events, deliveries }.
import { readFileSync, rmSync } from "node:fs";
import { createSecret } from "@plant-store/core";
import { openStore } from "@plant-store/store";
import pg from "pg";

// A well-formed token (the bin checks its admin tokens); the bench's only, never a credential anywhere.
export const BENCH_TOKEN = "psk_r6EjavgJoaGI1SDkjAwMrRgfBgpxoI1WDX8o";
export const body = (i) => `{"id":${i + 1},"name":"Monstera deliciosa","tag":"tropical"}`;

/** user + system clock ticks (1/100 s) of a process from /proc, or 0 once it is gone. */
export function ticks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Drops and creates the database a postgres:// URL names, through the server's `postgres` database. */
export async function recreateDatabase(url) {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

export async function fill(url, sinkUrl, events, subscriptions = 1) {
  if (/^postgres(ql)?:\/\//.test(url)) await recreateDatabase(url);
  else for (const suffix of ["", "-wal", "-shm"]) rmSync(url + suffix, { force: true });
  const store = await openStore({ url, logger: { warn() {} } });
  try {
    for (let i = 0; i < subscriptions; i++) {
      await store.subscriptions.create({ url: sinkUrl, token: BENCH_TOKEN, secrets: [createSecret()] });
    }
    let deliveries = 0;
    // In slices: SQLite group-commits a slice in one transaction; PostgreSQL runs it on the pool.
    for (let start = 0; start < events; start += 200) {
      const slice = Array.from({ length: Math.min(200, events - start) }, (_, i) =>
        store.outbox.publish(body(start + i)),
      );
      for (const r of await Promise.all(slice)) deliveries += r.deliveries;
    }
    return { events, deliveries };
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, sinkUrl, events, subscriptions] = process.argv.slice(2);
  const result = await fill(url, sinkUrl, Number(events), Number(subscriptions ?? 1));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
