import {
  chmodSync,
  existsSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store, StoreConfigError, StoreUnavailableError } from "../src/index.js";
import { SQLITE_MIGRATIONS } from "../src/sqlite/migrations.js";
import { fileIdentityCheck } from "../src/sqlite/sqlite-file.js";
import { spawnChild } from "./support/child.js";

// SQLite-only behaviour: group commit, lock contention, URL forms, several processes on one file.
let dir: string;
let file: string;
const stores: Store[] = [];
const open = async (options: Parameters<typeof openStore>[0] & object = {}) => {
  const store = await openStore({ url: file, logger: { warn() {} }, ...options });
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "plant-store-sqlite-"));
  file = join(dir, "store.db");
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** WAL frames written since the last checkpoint: each commit appends at least one. */
function walFrames(db: Database.Database): number {
  return (db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[])[0]!.log;
}

describe("SQLite group commit", () => {
  it("writes concurrent records in one transaction; one per record without group commit", async () => {
    const grouped = await open();
    const raw = new Database(file);
    try {
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      raw.pragma("wal_checkpoint(TRUNCATE)");
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => grouped.inbox.record({ webhookId: `g${i}`, body: "{}" })),
      );
      const groupedFrames = walFrames(raw);
      await grouped.close();

      const single = await open({ groupCommit: false });
      raw.pragma("wal_checkpoint(TRUNCATE)");
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => single.inbox.record({ webhookId: `s${i}`, body: "{}" })),
      );
      const singleFrames = walFrames(raw);
      // 200 rows fit in a handful of pages: one commit writes each page once.
      expect(groupedFrames).toBeLessThan(20);
      expect(singleFrames).toBeGreaterThanOrEqual(200);
    } finally {
      raw.close();
    }
  });

  it("group-commits concurrent publishes; each is readable from another connection once acknowledged", async () => {
    const grouped = await open();
    await grouped.subscriptions.create({ url: "https://a.example/hook", token: "psk_a" });
    const raw = new Database(file);
    try {
      raw.pragma("wal_checkpoint(TRUNCATE)");
      const visible: boolean[] = [];
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, (_, i) =>
          grouped.outbox
            // Two publishes with one key in the same turn: the second finds the first, as it would later.
            .publish({ id: i, name: "Fern" }, { idempotencyKey: i === 199 ? "k0" : `k${i}` })
            .then((result) => {
              const row = raw.prepare("SELECT id FROM messages WHERE id = ?").get(result.messageId);
              visible.push(row !== undefined);
              return result;
            }),
        ),
      );
      // k0 was used for {id: 0} first, so {id: 199} under k0 is a conflict; the other 199 are stored.
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(199);
      expect(results[199]).toMatchObject({ status: "rejected", reason: { code: "idempotency_conflict" } });
      expect(visible).toHaveLength(199);
      expect(visible.every(Boolean)).toBe(true);
      expect(raw.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(199);
      expect(raw.prepare("SELECT count(*) FROM deliveries").pluck().get()).toBe(199);
      expect(walFrames(raw)).toBeLessThan(40);
      // The same key and the same event in one turn: one message, the second a duplicate of it.
      const [a, b] = await Promise.all([
        grouped.outbox.publish({ id: 500, name: "Fern" }, { idempotencyKey: "same" }),
        grouped.outbox.publish({ id: 500, name: "Fern" }, { idempotencyKey: "same" }),
      ]);
      expect([a.duplicate, b.duplicate]).toEqual([false, true]);
      expect(b).toMatchObject({ messageId: a.messageId, deliveries: 1 });

      const single = await open({ groupCommit: false });
      raw.pragma("wal_checkpoint(TRUNCATE)");
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => single.outbox.publish({ id: 1000 + i, name: "Fern" })),
      );
      expect(walFrames(raw)).toBeGreaterThanOrEqual(50);
    } finally {
      raw.close();
    }
  });

  it("rejects every caller of a batch whose commit fails, and keeps none of its rows", async () => {
    const store = await open({ busyTimeoutMs: 50 });
    const locker = new Database(file);
    try {
      locker.exec("BEGIN IMMEDIATE");
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.inbox.record({ webhookId: `b${i}`, body: "{}" })),
      );
      expect(results.every((r) => r.status === "rejected" && r.reason instanceof StoreUnavailableError)).toBe(
        true,
      );
      expect((results[0] as PromiseRejectedResult).reason.code).toBe("store_unavailable");
      locker.exec("ROLLBACK");
      expect(await store.inbox.count()).toBe(0);
      await expect(store.inbox.record({ webhookId: "b0", body: "{}" })).resolves.toMatchObject({
        duplicate: false,
      });
    } finally {
      locker.close();
    }
  });

  it("is not ready (ping rejects) while another process holds the write lock, and ready once it is released", async () => {
    const store = await open({ busyTimeoutMs: 50 });
    await expect(store.ping()).resolves.toBeUndefined();
    const locker = new Database(file);
    try {
      locker.exec("BEGIN IMMEDIATE");
      // A read still succeeds in WAL mode; readiness is about whether a write could commit.
      expect(await store.inbox.count()).toBe(0);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      locker.exec("ROLLBACK");
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      locker.close();
    }
  });

  it("acknowledges a duplicate inside the same batch as a duplicate", async () => {
    const store = await open();
    const [a, b] = await Promise.all([
      store.inbox.record({ webhookId: "same", body: "1" }),
      store.inbox.record({ webhookId: "same", body: "2" }),
    ]);
    expect([a.duplicate, b.duplicate]).toEqual([false, true]);
    expect(Buffer.from((await store.inbox.get("same"))!.body).toString()).toBe("1");
  });

  it("stores a batch in statements of up to 64 rows, each result with its row's seq, duplicates told apart", async () => {
    const store = await open();
    await store.inbox.record({ webhookId: "old", body: "0" });
    // One turn: 150 new events (three statements' worth), a duplicate of a stored one, one of a new one.
    const ids = Array.from({ length: 150 }, (_, i) => `batch-${i}`);
    const sent = [...ids.slice(0, 70), "old", ...ids.slice(70, 100), "batch-3", ...ids.slice(100)];
    const results = await Promise.all(
      sent.map((webhookId, i) =>
        store.inbox.record({ webhookId, body: String(i), headers: { "user-agent": `ua ${i}` } }),
      ),
    );
    expect(results.map((r) => r.duplicate)).toEqual(
      sent.map((id, i) => id === "old" || (id === "batch-3" && i > 3)),
    );
    const seqs = new Set<number>();
    for (const [i, result] of results.entries()) {
      if (result.duplicate) continue;
      const stored = await store.inbox.get(sent[i]!);
      expect(result.event.seq).toBe(stored!.seq);
      expect(result.event.headers).toEqual({ "user-agent": `ua ${i}` });
      expect(Buffer.from(stored!.body).toString()).toBe(String(i));
      seqs.add(stored!.seq);
    }
    expect(seqs.size).toBe(150);
    expect(await store.inbox.count()).toBe(151);
    // And the batch after it, with no duplicate, still lines seqs up with rows.
    const next = await Promise.all(
      ["n1", "n2", "n3"].map((webhookId) => store.inbox.record({ webhookId, body: "{}" })),
    );
    for (const [i, result] of next.entries()) {
      expect(result.duplicate).toBe(false);
      if (!result.duplicate) expect(result.event.seq).toBe((await store.inbox.get(`n${i + 1}`))!.seq);
    }
  });
});

describe("SQLite group commit under another process's lock", () => {
  it("retries a batch held up by another process's lock, whatever that process committed meanwhile", async () => {
    // The store waits out the lock for as long as a busy machine needs to run the release timer below.
    const store = await open({ busyTimeoutMs: 60_000 });
    await store.inbox.record({ webhookId: "old", body: "0" });
    const locker = new Database(file);
    // One row, 2..64 rows (one statement, or one by one after a duplicate) and more than 64 (one transaction).
    const cases: [string[], string | null][] = [
      [["s1"], null],
      [["t1"], "t1"],
      [["old", "m1", "m2"], null],
      [["m3", "m4"], "m3"],
      [Array.from({ length: 100 }, (_, i) => `big${i}`), "big70"],
    ];
    try {
      for (const [ids, taken] of cases) {
        locker.exec("BEGIN IMMEDIATE");
        if (taken) {
          locker
            .prepare(
              "INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES (?, 'newPlant', 'o', '{}', 0)",
            )
            .run(taken);
        }
        const pending = Promise.all(ids.map((webhookId) => store.inbox.record({ webhookId, body: "x" })));
        // Released in a later turn: the store's first try, at the end of this turn, finds the lock held and it
        // retries on a timer until it is free.
        setTimeout(() => locker.exec(taken ? "COMMIT" : "ROLLBACK"), 30);
        const results = await pending;
        expect(results.map((r) => r.duplicate)).toEqual(ids.map((id) => id === taken || id === "old"));
        for (const [i, r] of results.entries()) {
          if (!r.duplicate) expect(r.event.seq).toBe((await store.inbox.get(ids[i] as string))!.seq);
        }
      }
      const stored = cases.reduce((n, [ids]) => n + ids.filter((id) => id !== "old").length, 1);
      expect(await store.inbox.count()).toBe(stored);
    } finally {
      locker.close();
    }
  }, 120_000);
});

describe("SQLite forwards as a cursor over the inbox (decision 45)", () => {
  const RECEIVER = { leaseMs: 30_000, workerId: "rx", scope: "receiver" } as const;
  const rows = (raw: Database.Database, sql: string) => raw.prepare(sql).pluck().get() as number;

  it("writes no row per forward at ingest; a claim takes at most its limit and moves the cursor in its transaction", async () => {
    const store = await open();
    const dst = await store.destinations.create({ name: "c", url: "http://c.internal/" });
    const ids = Array.from({ length: 20 }, (_, i) => `cur${i}`);
    for (const id of ids) await store.inbox.record({ webhookId: id, body: `{"id":1,"name":"${id}"}` });
    const raw = new Database(file, { readonly: true });
    try {
      expect(rows(raw, "SELECT count(*) FROM deliveries") + rows(raw, "SELECT count(*) FROM messages")).toBe(
        0,
      );
      expect(rows(raw, `SELECT forward_seq FROM subscriptions WHERE id = '${dst.id}'`)).toBe(0);
      const first = await store.outbox.claim(5, RECEIVER);
      expect(first.map((d) => d.message.id)).toEqual(ids.slice(0, 5));
      // Only what the claim could hand out was written, and the cursor stands after it.
      expect(rows(raw, "SELECT count(*) FROM deliveries")).toBe(5);
      expect(rows(raw, `SELECT forward_seq FROM subscriptions WHERE id = '${dst.id}'`)).toBe(5);
      expect((await store.destinations.stats())[0]).toMatchObject({ depth: 20 });
      const rest = [];
      for (let claimed = await store.outbox.claim(5, RECEIVER); claimed.length > 0; ) {
        rest.push(...claimed.map((d) => d.message.id));
        claimed = await store.outbox.claim(5, RECEIVER);
      }
      expect(rest).toEqual(ids.slice(5));
      expect(rows(raw, "SELECT count(*) FROM deliveries")).toBe(20);
    } finally {
      raw.close();
    }
  });

  it("keeps a slow destination's rows bounded: each takes what it can send, several destinations behind at once", async () => {
    const store = await open();
    const slow = [];
    for (const name of ["s1", "s2", "s3"]) {
      slow.push(await store.destinations.create({ name, url: `http://${name}.internal/`, maxInFlight: 1 }));
    }
    for (let i = 0; i < 200; i++) await store.inbox.record({ webhookId: `slow${i}`, body: "{}" });
    const handed = [];
    for (let round = 0; round < 20; round++) handed.push(...(await store.outbox.claim(4, RECEIVER)));
    expect(handed.map((d) => d.message.id)).toEqual(["slow0", "slow0", "slow0"]);
    const raw = new Database(file, { readonly: true });
    try {
      for (const dst of slow) {
        // Its four newest rows at most pending beside the one in flight: the claim's limit, plus the lease.
        expect(
          rows(raw, `SELECT count(*) FROM deliveries WHERE subscription_id = '${dst.id}'`),
        ).toBeLessThanOrEqual(5);
      }
    } finally {
      raw.close();
    }
  });

  it("beside a process of the version before: no event is sent twice, and a destination it creates gets what follows", async () => {
    const store = await open();
    const dst = await store.destinations.create({ name: "new", url: "http://new.internal/" });
    await store.inbox.record({ webhookId: "before", body: "{}" });
    const raw = new Database(file);
    try {
      // What a version-9 process writes beside this one: a forward row at ingest, and a destination without a cursor.
      raw.exec(`INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at)
          VALUES ('by-old', 'newPlant', '{}', '{}', 2);
        INSERT INTO messages (id, event_type, body, created_at, inbox_seq) VALUES ('in_2', 'newPlant', X'', 2, 2);
        INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
          VALUES ('in_2', '${dst.id}', 'pending', 2, 2, 2);
        INSERT INTO subscriptions (id, url, token, secrets, created_at, updated_at, name, application_id)
          VALUES ('dst_old', 'http://old.internal/', '', '[]', 3, 3, 'old', NULL);`);
    } finally {
      raw.close();
    }
    await store.inbox.record({ webhookId: "after", body: "{}" });
    const claimed = await store.outbox.claim(20, RECEIVER);
    expect(
      claimed
        .map((d) => `${d.subscription.id === dst.id ? "new" : d.subscription.id}:${d.message.id}`)
        .sort(),
    ).toEqual(["dst_old:after", "new:after", "new:before", "new:by-old"].sort());
  });

  it("deleting the one destination still behind an event (not taken, or taken and unfinished) marks it processed", async () => {
    const store = await open();
    const fast = await store.destinations.create({ name: "fast", url: "http://fast.internal/" });
    const slow = await store.destinations.create({
      name: "slow",
      url: "http://slow.internal/",
      maxInFlight: 1,
    });
    for (const id of ["d1", "d2", "d3"]) await store.inbox.record({ webhookId: id, body: "{}" });
    const claimed = await store.outbox.claim(10, RECEIVER);
    // slow took the three events (one leased, two pending); fast has all three to deliver
    expect(claimed.filter((d) => d.subscription.id === slow.id)).toHaveLength(1);
    for (const d of claimed.filter((d) => d.subscription.id === fast.id)) {
      await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
    }
    await store.destinations.pause(slow.id);
    await store.inbox.record({ webhookId: "d4", body: "{}" });
    const [d4] = await store.outbox.claim(10, RECEIVER);
    expect(d4?.message.id).toBe("d4");
    await store.outbox.record(d4!, { kind: "delivered", status: 200, latencyMs: 1 });
    for (const id of ["d1", "d2", "d3", "d4"]) expect((await store.inbox.get(id))?.processedAt).toBeNull();
    expect(await store.destinations.delete(slow.id)).toBe(true);
    for (const id of ["d1", "d2", "d3", "d4"])
      expect((await store.inbox.get(id))?.processedAt).toBeInstanceOf(Date);
    expect(await store.destinations.delete(slow.id)).toBe(false);
    expect(await store.destinations.get(fast.id)).not.toBeNull();
  });

  it("upgrades a version 9 file: its forward rows written at ingest are served once, later events by the cursor", async () => {
    const raw = new Database(file);
    raw.exec(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const record = raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)");
    for (const m of SQLITE_MIGRATIONS.slice(0, 9)) {
      raw.exec(m.sql);
      record.run(m.version, m.name);
    }
    // What version 9 wrote at ingest with one destination: the event, its message without a body, one delivery.
    raw.exec(`INSERT INTO subscriptions (id, url, token, secrets, created_at, updated_at, name, application_id)
        VALUES ('dst_old', 'http://old.internal/', '', '[]', 1, 1, 'old', NULL);
      INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES ('v9', 'newPlant', '{}', '{}', 1);
      INSERT INTO messages (id, event_type, body, created_at, inbox_seq) VALUES ('in_1', 'newPlant', X'', 1, 1);
      INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
        VALUES ('in_1', 'dst_old', 'pending', 1, 1, 1);`);
    raw.close();
    const store = await open();
    await store.inbox.record({ webhookId: "v10", body: '{"id":2,"name":"n"}' });
    const claimed = await store.outbox.claim(10, RECEIVER);
    expect(claimed.map((d) => [d.subscription.id, d.message.id])).toEqual([
      ["dst_old", "v9"],
      ["dst_old", "v10"],
    ]);
    for (const d of claimed) await store.outbox.record(d, { kind: "delivered", status: 200, latencyMs: 1 });
    expect(await store.outbox.claim(10, RECEIVER)).toEqual([]);
    expect((await store.inbox.get("v9"))?.processedAt).toBeInstanceOf(Date);
    expect((await store.inbox.get("v10"))?.processedAt).toBeInstanceOf(Date);
  });
});

describe("SQLite URLs and failures", () => {
  it("opens :memory:, sqlite: and file: URLs and creates the parent directory", async () => {
    for (const url of [":memory:", `sqlite:${join(dir, "a", "x.db")}`, `file://${join(dir, "b", "y.db")}`]) {
      const store = await openStore({ url, logger: { warn() {} } });
      stores.push(store);
      await store.inbox.record({ webhookId: "x", body: "{}" });
      expect(store.backend).toBe("sqlite");
      expect(await store.inbox.count()).toBe(1);
    }
  });

  it("refuses a URL of another scheme instead of creating a file named after it (password included)", async () => {
    for (const url of [
      "mysql://u:SUPERSECRETPW@h/db",
      "postgress://u:SUPERSECRETPW@h/db",
      "https://h/x.db",
    ]) {
      const error = (await openStore({ url }).catch((e: unknown) => e)) as Error & { code?: string };
      expect(error.code).toBe("invalid_url");
      expect(error.message).toMatch(/scheme '\w+' is not supported/);
      expect(error.message).not.toContain("SUPERSECRETPW");
    }
    expect(existsSync("mysql:")).toBe(false);
    expect(existsSync("postgress:")).toBe(false);
  });

  it("names a path that cannot be a database (invalid_path), and reports a file that is not SQLite as unavailable", async () => {
    const plain = join(dir, "plain-file");
    writeFileSync(plain, "not a directory");
    const error = await openStore({ url: join(plain, "sub", "x.db") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreConfigError);
    expect(error).toMatchObject({
      code: "invalid_path",
      message: expect.stringContaining(`${plain} is a file`),
    });
    const directory = await openStore({ url: dir }).catch((e: unknown) => e);
    expect(directory).toMatchObject({
      code: "invalid_path",
      message: expect.stringContaining("is a directory"),
    });
    const notSqlite = await openStore({ url: plain }).catch((e: unknown) => e);
    expect(notSqlite).toMatchObject({ code: "store_unavailable" });
  });

  it("refuses a kept header that is not a header name without creating the file", async () => {
    const path = join(dir, "never.db");
    await expect(openStore({ url: path, keepHeaders: ["x request id"] })).rejects.toMatchObject({
      code: "invalid_option",
    });
    expect(existsSync(path)).toBe(false);
  });

  it("refuses publish({ tx }), which needs PostgreSQL", async () => {
    const store = await open();
    await expect(
      store.outbox.publish('{"id":1,"name":"a"}', { tx: { query: async () => ({ rows: [] }) } }),
    ).rejects.toMatchObject({
      code: "invalid_option",
    });
  });
});

describe("SQLite with several processes", () => {
  it("two processes claiming from one file never get the same delivery", async () => {
    const store = await open();
    for (let i = 0; i < 3; i++)
      await store.subscriptions.create({ url: `https://s${i}.example/`, token: "psk_t" });
    for (let i = 0; i < 400; i++) await store.outbox.publish(`{"id":${i},"name":"Fern"}`);
    await store.close();

    const workers = [
      spawnChild("./claim-child.mjs", [file, "p1"]),
      spawnChild("./claim-child.mjs", [file, "p2"]),
    ];
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin?.write("go\n");
    const codes = await Promise.all(workers.map((w) => w.closed));
    expect(workers.map((w) => w.stderr())).toEqual(["", ""]);
    expect(codes).toEqual([0, 0]);
    const [p1, p2] = workers.map((w) => w.lines.map(Number));
    const all = [...p1!, ...p2!];
    console.info(`[sqlite processes] p1 claimed ${p1!.length}, p2 claimed ${p2!.length}`);
    expect(all).toHaveLength(1200);
    expect(new Set(all).size).toBe(1200);
    expect(p1!.length).toBeGreaterThan(0);
    expect(p2!.length).toBeGreaterThan(0);
  }, 60_000);
});

describe("SQLite files", () => {
  it("creates a missing directory 0700 and the database 0600 (its -wal and -shm follow)", async () => {
    const nested = join(dir, "private", "data", "store.db");
    const store = await open({ url: nested });
    await store.inbox.record({ webhookId: "m1", body: "{}" });
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(join(dir, "private"))).toBe(0o700);
    expect(mode(join(dir, "private", "data"))).toBe(0o700);
    expect(mode(nested)).toBe(0o600);
    expect(mode(`${nested}-wal`)).toBe(0o600);
    expect(mode(`${nested}-shm`)).toBe(0o600);
  });

  it("keeps an existing file's mode, and warns when every local user can read it", async () => {
    (await open()).close();
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    await open({ logger: { warn: (message: string) => warnings.push(message) } });
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(warnings).toEqual([expect.stringMatching(/every local user.*mode 644.*chmod 600/)]);
  });

  it("keeps serving a store opened by a relative path after the process changes directory", async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const store = await open({ url: "./relative/store.db" });
      await store.inbox.record({ webhookId: "before", body: "{}" });
      process.chdir(tmpdir());
      await expect(store.inbox.record({ webhookId: "after", body: "{}" })).resolves.toMatchObject({
        duplicate: false,
      });
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
  });

  it("is not ready while its file system has less free space than minFreeDiskBytes; writes still go through", async () => {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    const tight = await open({ minFreeDiskBytes: free + 2 ** 30 }); // 1 GiB more than is free
    await expect(tight.ping()).rejects.toMatchObject({
      name: "StoreUnavailableError",
      code: "disk_low",
      message: expect.stringMatching(
        /^Only [\d.]+ MiB is free on the file system of .*store\.db, less than the [\d.]+ MiB required \(minFreeDiskBytes\)/,
      ),
    });
    // Readiness only: the disk is not full yet, and what can still be committed is.
    await expect(tight.inbox.record({ webhookId: "m1", body: "{}" })).resolves.toMatchObject({
      duplicate: false,
    });
    await tight.close();
    await expect((await open({ minFreeDiskBytes: 1 })).ping()).resolves.toBeUndefined();
    await expect((await open({ minFreeDiskBytes: 0 })).ping()).resolves.toBeUndefined();
    await expect((await open({})).ping()).resolves.toBeUndefined(); // the default, 32 MiB
  });

  it.each([-1, 1.5, "32", Number.NaN])("refuses minFreeDiskBytes %s", async (value) => {
    await expect(open({ minFreeDiskBytes: value as number })).rejects.toMatchObject({
      code: "invalid_option",
      message: expect.stringMatching(/minFreeDiskBytes must be a whole number of bytes/),
    });
  });

  it.each([
    ["deleted", () => rmSync(file)],
    ["renamed", () => renameSync(file, join(dir, "moved.db"))],
    [
      "replaced by another database",
      () => {
        renameSync(file, join(dir, "moved.db"));
        new Database(file).close();
      },
    ],
  ])(
    "refuses every operation once the file was %s, so nothing is acknowledged into a lost file",
    async (_, damage) => {
      const store = await open();
      await store.inbox.record({ webhookId: "before", body: "{}" });
      await expect(store.ping()).resolves.toBeUndefined();
      damage();
      const refused = {
        name: "StoreUnavailableError",
        code: "store_file_replaced",
        message: expect.stringMatching(/deleted or replaced.*Restart/),
      };
      await expect(store.inbox.record({ webhookId: "after", body: "{}" })).rejects.toMatchObject(refused);
      await expect(store.outbox.publish({ id: 1, name: "Fern" })).rejects.toMatchObject(refused);
      await expect(store.ping()).rejects.toMatchObject(refused);
    },
  );
});

describe("fileIdentityCheck", () => {
  let where: string;
  beforeEach(() => {
    where = mkdtempSync(join(tmpdir(), "plant-store-identity-"));
  });
  afterEach(() => rmSync(where, { recursive: true, force: true }));

  it.each([
    ["as numbers", true],
    ["as bigints (a device or inode beyond 2^53)", false],
  ])(
    "compares the device and inode %s: the same file passes; deleted, renamed or replaced, it fails",
    (_, numbers) => {
      const path = join(where, "a.db");
      const other = join(where, "b.db");
      writeFileSync(path, "x");
      const same = fileIdentityCheck(path, numbers);
      expect(same()).toBe(true);
      writeFileSync(path, "changed in place"); // the same inode
      expect(same()).toBe(true);
      renameSync(path, other);
      expect(same()).toBe(false);
      writeFileSync(path, "another file"); // a new inode at the path (the old one is still held by `other`)
      expect(same()).toBe(false);
      rmSync(path);
      expect(same()).toBe(false);
      renameSync(other, path); // the original back in its place
      expect(same()).toBe(true);
      expect(fileIdentityCheck(join(where, "missing.db"), numbers)()).toBe(false);
    },
  );
});
