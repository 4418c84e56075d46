import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboxEvent, InboxStreamOptions } from "../src/api/inbox.js";
import { openStore, type Store } from "../src/index.js";
import { pgChannels } from "../src/pg/open-pg.js";
import { followInbox, type InboxFollowSource } from "../src/shared/follow-inbox.js";
import { Notifier } from "../src/shared/notifier.js";
import { PG_URL, pgBackend, type TestBackend, type TestStoreOptions } from "./support/backends.js";

// inbox.stream() must yield every committed event exactly once, although PostgreSQL commits seqs out of
// order and can lose notifications while the LISTEN connection reconnects.

const POLL = { timeout: 5_000, interval: 5 };

/** Iterates `events` in the background; `seqs` fills as they come. */
function consume(events: (signal: AbortSignal) => AsyncIterable<InboxEvent>) {
  const controller = new AbortController();
  const seqs: number[] = [];
  const done = (async () => {
    for await (const event of events(controller.signal)) seqs.push(event.seq);
  })();
  return {
    seqs,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

function event(seq: number): InboxEvent {
  return {
    seq,
    webhookId: `w${seq}`,
    eventType: "newPlant",
    body: Buffer.from("{}"),
    headers: {},
    receivedAt: new Date(0),
    processedAt: null,
  };
}

/** An inbox driven by hand: `commit` makes a row visible, a fetch can be held after its snapshot. */
class FakeSource implements InboxFollowSource {
  readonly notifier = new Notifier<number[]>();
  readonly closed = new AbortController().signal;
  readonly rows = new Map<number, InboxEvent>();
  readonly fetches: { after: number; extra: number[] }[] = [];
  commitsOutOfOrder: boolean;
  /** The next fetch reads the rows at once but answers only when this resolves. */
  hold: Promise<void> | undefined;
  held = false;

  constructor(commitsOutOfOrder: boolean) {
    this.commitsOutOfOrder = commitsOutOfOrder;
  }

  async maxSeq() {
    return Math.max(0, ...this.rows.keys());
  }

  fetchAfter(after: number, extra: readonly number[], limit: number): Promise<InboxEvent[]> {
    this.fetches.push({ after, extra: [...extra] });
    const rows = [...this.rows.values()]
      .filter((e) => e.seq > after || extra.includes(e.seq))
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit);
    const hold = this.hold;
    this.hold = undefined;
    if (!hold) return Promise.resolve(rows);
    this.held = true;
    return hold.then(() => rows);
  }

  commit(seq: number, notify = true) {
    this.rows.set(seq, event(seq));
    if (notify) this.notifier.emit([seq]);
  }

  follow(options: InboxStreamOptions) {
    return consume((signal) => followInbox(this, { ...options, signal }));
  }
}

describe("followInbox", () => {
  it.each([true, false])(
    "yields a seq whose notification arrives while a fetch that missed it is in flight (commitsOutOfOrder %s)",
    async (outOfOrder) => {
      const source = new FakeSource(outOfOrder);
      const stream = source.follow({ after: 0, pollIntervalMs: 600_000 });
      try {
        await expect.poll(() => source.fetches.length, POLL).toBe(1);
        let release!: () => void;
        source.hold = new Promise((resolve) => {
          release = resolve;
        });
        source.commit(2); // seq 1 was taken first but is not committed yet
        await expect.poll(() => source.held, POLL).toBe(true); // the fetch read {2}
        source.commit(1); // notified while that fetch is in flight, above the `last` it started from
        release();
        await expect.poll(() => stream.seqs, POLL).toEqual([2, 1]);
      } finally {
        await stream.stop();
      }
    },
  );

  it("sweeps after a reconnect (empty emit) for a lower seq whose notification was lost", async () => {
    const source = new FakeSource(true);
    const stream = source.follow({ after: 0, pollIntervalMs: 600_000 });
    try {
      source.commit(2);
      await expect.poll(() => stream.seqs, POLL).toEqual([2]);
      source.commit(1, false);
      source.commit(3, false);
      source.notifier.emit([]);
      await expect.poll(() => stream.seqs, POLL).toEqual([2, 1, 3]);
    } finally {
      await stream.stop();
    }
  });

  it("sweeps at each idle poll, yields a found seq once, and asks only for never-yielded seqs of the window", async () => {
    const source = new FakeSource(true);
    source.commit(10);
    const stream = source.follow({ after: 10, pollIntervalMs: 10 });
    try {
      source.commit(12);
      source.commit(15); // 13, 14 never fill (a duplicate insert consumed them)
      await expect.poll(() => stream.seqs, POLL).toEqual([12, 15]);
      source.commit(11, false); // its notification was lost
      await expect.poll(() => stream.seqs, POLL).toEqual([12, 15, 11]);
      const seen = source.fetches.length;
      await expect.poll(() => source.fetches.length, POLL).toBeGreaterThan(seen + 5);
      expect(stream.seqs).toEqual([12, 15, 11]);
      // Never below the start point (a resuming client has those), never what was yielded.
      for (const { extra } of source.fetches.slice(seen)) expect(extra).toEqual([14, 13]);
    } finally {
      await stream.stop();
    }
  });

  it("never re-yields a seq that left the window of remembered ones, after a late lower seq and many idle sweeps", async () => {
    const source = new FakeSource(true);
    const stream = source.follow({ after: 0, pollIntervalMs: 5 });
    try {
      // seq 1 commits last, after more seqs than the window remembers (4096) were streamed.
      for (let seq = 2; seq <= 4300; seq++) source.commit(seq);
      await expect.poll(() => stream.seqs.length, POLL).toBe(4299);
      source.commit(1);
      await expect.poll(() => stream.seqs.length, POLL).toBe(4300);
      const seen = source.fetches.length;
      await expect.poll(() => source.fetches.length, POLL).toBeGreaterThan(seen + 20);
      expect(stream.seqs).toHaveLength(4300);
      expect(new Set(stream.seqs).size).toBe(4300);
    } finally {
      await stream.stop();
    }
  });

  it("does not sweep for a source whose commits are in seq order (SQLite)", async () => {
    const source = new FakeSource(false);
    const stream = source.follow({ after: 0, pollIntervalMs: 5 });
    try {
      source.commit(2);
      source.commit(5);
      await expect.poll(() => stream.seqs, POLL).toEqual([2, 5]);
      const seen = source.fetches.length;
      await expect.poll(() => source.fetches.length, POLL).toBeGreaterThan(seen + 5);
      source.notifier.emit([]);
      await expect.poll(() => source.fetches.length, POLL).toBeGreaterThan(seen + 10);
      expect(source.fetches.every((f) => f.extra.length === 0)).toBe(true);
    } finally {
      await stream.stop();
    }
  });

  it("asks once for a notified seq that is gone, and ignores a notification of a yielded seq", async () => {
    const source = new FakeSource(true);
    const stream = source.follow({ after: 0, pollIntervalMs: 600_000 });
    try {
      source.commit(1);
      source.commit(3);
      await expect.poll(() => stream.seqs, POLL).toEqual([1, 3]);
      source.notifier.emit([2]); // committed, then deleted before the stream fetched it
      source.notifier.emit([1]);
      await expect.poll(() => source.fetches.some((f) => f.extra.includes(2)), POLL).toBe(true);
      source.commit(4);
      await expect.poll(() => stream.seqs, POLL).toEqual([1, 3, 4]);
      expect(source.fetches.filter((f) => f.extra.length > 0)).toEqual([{ after: 3, extra: [2] }]);
    } finally {
      await stream.stop();
    }
  });
});

if (!PG_URL)
  console.warn("[store inbox stream] SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.");

describe.skipIf(!PG_URL)("PostgreSQL inbox stream", () => {
  let backend: TestBackend;
  let app: pg.Pool;
  let schema: string;
  beforeEach(async () => {
    backend = pgBackend(PG_URL as string);
    app = new pg.Pool({ connectionString: PG_URL, max: 3 });
  });
  afterEach(async () => {
    await app.end();
    await backend.cleanup();
  });

  /** Opens the writer store (creating the schema). */
  async function writerStore(options?: TestStoreOptions): Promise<Store> {
    const store = await backend.open(options);
    [{ s: schema }] = await backend.sql("SELECT {schema} AS s");
    return store;
  }

  /** Inserts (and NOTIFYs at commit) like the store does, on `client`, e.g. in an open transaction. */
  async function insert(client: pg.ClientBase, webhookId: string): Promise<number> {
    const { rows } = await client.query(
      `WITH ins AS (
         INSERT INTO "${schema}".inbox_events (webhook_id, body, headers, received_at)
         VALUES ($1, '\\x7b7d', '{}', 0) RETURNING seq)
       SELECT seq, pg_notify($2, seq::text) FROM ins`,
      [webhookId, pgChannels(schema).inbox],
    );
    return Number(rows[0].seq);
  }

  it("yields a lower seq committed after a higher one was streamed, also when its notification arrives during the fetch", async () => {
    const writer = await writerStore();
    // The reader's pool can hold the answer of the stream's fetch that returns `holdFor`, after the
    // server ran it: the notification of a seq that fetch missed then lands while it is in flight.
    const pool = new pg.Pool({ connectionString: PG_URL, max: 3 });
    let holdFor: string | undefined;
    let gate: Promise<void> = Promise.resolve();
    let held = false;
    let fetches = 0;
    const query = pool.query.bind(pool) as (text: any, values?: any) => Promise<any>;
    (pool as any).query = (text: any, values?: any) => {
      const result = query(text, values);
      if (typeof text !== "string" || !text.includes("seq = ANY")) return result;
      fetches++;
      return result.then(async (r: pg.QueryResult) => {
        if (holdFor && r.rows.some((row) => row.webhook_id === holdFor)) {
          holdFor = undefined;
          held = true;
          await gate;
        }
        return r;
      });
    };
    const reader = await openStore({ pool, schema, logger: { warn() {} } });
    const stream = consume((signal) => reader.inbox.stream({ signal, pollIntervalMs: 600_000 }));
    const a = await app.connect();
    try {
      await expect.poll(() => fetches, POLL).toBeGreaterThan(0); // listening, start point read

      await a.query("BEGIN");
      const n = await insert(a, "a-1");
      const b = await writer.inbox.record({ webhookId: "b-1", body: "{}" });
      expect(b).toMatchObject({ event: { seq: n + 1 } });
      await expect.poll(() => stream.seqs, POLL).toEqual([n + 1]);
      await a.query("COMMIT");
      await expect.poll(() => stream.seqs, POLL).toEqual([n + 1, n]);

      await a.query("BEGIN");
      const m = await insert(a, "a-2");
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      holdFor = "b-2";
      expect(await writer.inbox.record({ webhookId: "b-2", body: "{}" })).toMatchObject({
        event: { seq: m + 1 },
      });
      await expect.poll(() => held, POLL).toBe(true);
      // Sent after the inbox NOTIFY in A's transaction, so delivered after it: once the reader is
      // woken by it, the notification of `m` has reached the stream.
      const woken = reader.outbox.waitForWork(undefined, 10_000);
      await a.query("SELECT pg_notify($1, '')", [pgChannels(schema).outbox]);
      await a.query("COMMIT");
      expect(await woken).toBe(true);
      release();
      await expect.poll(() => stream.seqs, POLL).toEqual([n + 1, n, m + 1, m]);
    } finally {
      a.release();
      await stream.stop();
      await reader.close();
      await pool.end();
    }
  });

  it("streams every committed seq exactly once under concurrent writes from two instances", async () => {
    // Small batches keep several inserts of each instance in flight: seqs commit out of order.
    const a = await writerStore({ maxBatchSize: 10 });
    const b = await backend.open({ maxBatchSize: 10 });
    const reader = await backend.open();
    const stream = consume((signal) => reader.inbox.stream({ signal, after: 0, pollIntervalMs: 600_000 }));
    try {
      const total = 5_000;
      let next = 0;
      const worker = async (w: number) => {
        while (next < total) {
          const i = next++;
          // Every 10th id again: a duplicate, which consumes a seq that never commits (a gap).
          const id = i % 10 === 9 ? `e-${i - 1}` : `e-${i}`;
          await (i % 2 === w % 2 ? a : b).inbox.record({ webhookId: id, body: "{}" });
        }
      };
      await Promise.all(Array.from({ length: 200 }, (_, w) => worker(w)));
      const committed = (await backend.sql("SELECT seq FROM {t}inbox_events ORDER BY seq")).map((r) =>
        Number(r.seq),
      );
      expect(committed.length).toBe(4_500);
      const missing = () => {
        const got = new Set(stream.seqs);
        return committed.filter((seq) => !got.has(seq));
      };
      await expect.poll(missing, { timeout: 5_000, interval: 20 }).toEqual([]);
      expect([...stream.seqs].sort((x, y) => x - y)).toEqual(committed); // and none twice
    } finally {
      await stream.stop();
    }
  });

  it("streams events committed while the LISTEN connection was killed, once it reconnects", async () => {
    const writer = await writerStore();
    // The reader connects through a relay that can hold new connections, so the outage lasts until
    // the test ends it.
    const target = new URL(PG_URL as string);
    let accepting = true;
    const waiting: (() => void)[] = [];
    const sockets: Socket[] = [];
    const relay: Server = createServer((client) => {
      sockets.push(client);
      client.pause();
      const open = () => {
        const server = connect(Number(target.port || 5432), target.hostname);
        sockets.push(server);
        client.pipe(server);
        server.pipe(client);
        const end = () => {
          client.destroy();
          server.destroy();
        };
        for (const socket of [client, server]) socket.on("error", end).on("close", end);
      };
      if (accepting) open();
      else waiting.push(open);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const url = new URL(PG_URL as string);
    url.hostname = "127.0.0.1";
    url.port = String((relay.address() as { port: number }).port);
    const reader = await openStore({ url: url.href, schema, logger: { warn() {} } });
    const stream = consume((signal) => reader.inbox.stream({ signal, after: 0, pollIntervalMs: 600_000 }));
    const listening = async () =>
      (
        await app.query(
          "SELECT pid FROM pg_stat_activity WHERE application_name = 'plant-store-listen' AND query LIKE $1",
          [`%${pgChannels(schema).outbox}%`],
        )
      ).rows.map((r) => r.pid as number);
    const a = await app.connect();
    try {
      const first = await writer.inbox.record({ webhookId: "first", body: "{}" });
      const s1 = first.duplicate ? 0 : first.event.seq;
      await expect.poll(() => stream.seqs, POLL).toEqual([s1]);
      await expect.poll(listening, POLL).toHaveLength(1);
      const [pid] = await listening();

      await a.query("BEGIN");
      const n = await insert(a, "late");
      await writer.inbox.record({ webhookId: "early", body: "{}" });
      await expect.poll(() => stream.seqs, POLL).toEqual([s1, n + 1]);

      accepting = false;
      await app.query("SELECT pg_terminate_backend($1)", [pid]);
      // The old LISTEN backend is gone and the reconnect is waiting at the relay.
      await expect
        .poll(
          async () => (await app.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount,
          POLL,
        )
        .toBe(0);
      await expect.poll(() => waiting.length, POLL).toBe(1);
      await a.query("COMMIT"); // seq n, below what was streamed; nobody hears its NOTIFY
      await writer.inbox.record({ webhookId: "during", body: "{}" }); // n + 2, NOTIFY lost too

      accepting = true;
      for (const open of waiting.splice(0)) open();
      await expect.poll(() => stream.seqs, POLL).toEqual([s1, n + 1, n, n + 2]);
    } finally {
      a.release();
      await stream.stop();
      await reader.close();
      for (const socket of sockets) socket.destroy();
      relay.close();
    }
  });
});
