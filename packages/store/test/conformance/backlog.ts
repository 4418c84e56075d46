import { describe, expect, it } from "vitest";
import { quoteIdent } from "../../src/pg/migrations.js";
import {
  claimSql,
  compactCountsSql,
  finishManySql,
  limitedDueSql,
  oldestDueSql,
  stateCountsSql,
} from "../../src/pg/outbox-sql.js";
import { finishManyParams } from "../../src/pg/pg-outcomes.js";
import { DISABLED_REASON, outcomeOf } from "../../src/shared/outcomes.js";
import {
  CLAIM_DUE,
  CLAIMED_SUBSCRIPTION,
  FAIL_PENDING_OF,
  HELD_LEASES,
  insertAttemptsSql,
  LEASE_MANY,
  LIMITED_DUE,
  OLDEST_DUE,
  RECOVER_FAILED_OF,
  STATE_COUNTS,
  SUBSCRIPTION_STATES,
  updateDeliveriesSql,
} from "../../src/sqlite/outbox-sql.js";
import type { TestBackend } from "../support/backends.js";

const ROWS = 1_000_000;
const NOW = 1_750_000_000_000;

// 10 subscriptions × 100k messages = 1M deliveries: 90% pending with due times scattered over
// ±1 h around NOW (half due), 2% leased (some expired), 5% delivered, 3% failed.
const STATE = (i: string) =>
  `CASE WHEN ${i} % 100 < 5 THEN 'delivered' WHEN ${i} % 100 < 8 THEN 'failed' WHEN ${i} % 100 < 10 THEN 'leased' ELSE 'pending' END`;
const DUE = (i: string) =>
  `CASE WHEN ${i} % 100 < 8 THEN ${NOW} - 86400000 + ${i} WHEN ${i} % 100 < 10 THEN ${NOW} - 1000 + (${i} % 2000) ELSE ${NOW} - 3600000 + ((${i} * 7919) % 7200000) END`;

async function buildSqliteBacklog(b: TestBackend): Promise<void> {
  await b.sql(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9)
    INSERT INTO subscriptions (id, url, token, secrets, enabled, created_at, updated_at)
    SELECT 'sub_bulk_' || i, 'https://bulk.example/' || i, 'psk_bulk', '[]', 1, ${NOW}, ${NOW} FROM n`);
  await b.sql(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS / 10 - 1})
    INSERT INTO messages (id, body, created_at)
    SELECT printf('msg_bulk_%07d', i), CAST('{"id":' || i || ',"name":"Fern"}' AS BLOB), ${NOW} - 86400000 + i FROM n`);
  await b.sql(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS - 1})
    INSERT INTO deliveries (message_id, subscription_id, state, due_at, attempts, lease_token, created_at, updated_at)
    SELECT printf('msg_bulk_%07d', i / 10), 'sub_bulk_' || (i % 10), ${STATE("i")}, ${DUE("i")},
           i % 3, 'bulk', ${NOW} - 86400000 + i, ${NOW} FROM n`);
  await b.sql("ANALYZE");
}

async function buildPgBacklog(b: TestBackend): Promise<void> {
  await b.sql(`INSERT INTO {t}subscriptions (id, url, token, secrets, enabled, created_at, updated_at)
    SELECT 'sub_bulk_' || i, 'https://bulk.example/' || i, 'psk_bulk', '[]', true, ${NOW}, ${NOW} FROM generate_series(0, 9) i`);
  await b.sql(`INSERT INTO {t}messages (id, body, created_at)
    SELECT 'msg_bulk_' || lpad(i::text, 7, '0'), convert_to('{"id":' || i || ',"name":"Fern"}', 'UTF8'), ${NOW} - 86400000 + i
    FROM generate_series(0, ${ROWS / 10 - 1}) i`);
  // Two halves on two connections: PostgreSQL inserts (and checks foreign keys) in parallel.
  const half = (from: number, to: number) =>
    b.sql(`INSERT INTO {t}deliveries (message_id, subscription_id, state, due_at, attempts, lease_token, created_at, updated_at)
    SELECT 'msg_bulk_' || lpad((i / 10)::text, 7, '0'), 'sub_bulk_' || (i % 10), ${STATE("i")}, ${DUE("i")},
           i % 3, 'bulk', ${NOW} - 86400000 + i, ${NOW}
    FROM generate_series(${from}::bigint, ${to - 1}) i`);
  await Promise.all([half(0, ROWS / 2), half(ROWS / 2, ROWS)]);
  // What autovacuum does on its own shortly after a bulk load; the planner needs statistics.
  await b.sql("ANALYZE {t}subscriptions");
  await b.sql("ANALYZE {t}messages");
  await b.sql("ANALYZE {t}deliveries");
}

/** A 1M-row backlog: claim and stats must go through indexes (checked in the plans, not timed). */
export function backlogConformance(backend: () => TestBackend): void {
  describe("1M-row backlog", () => {
    it("claims and reports stats through indexes", async () => {
      const b = backend();
      const store = await b.open({ now: () => NOW });
      // Before any statistics (SQLite gathers none on its own): the limited claim still takes the due index.
      const unanalyzed = b.kind === "sqlite" ? await b.explain(LIMITED_DUE, [NOW, '["sub_bulk_3"]', 50]) : "";
      expect(unanalyzed).not.toMatch(/deliveries_by_subscription_idx|TEMP B-TREE/);
      const started = Date.now();
      await (b.kind === "sqlite" ? buildSqliteBacklog(b) : buildPgBacklog(b));
      const built = Date.now();

      if (b.kind === "sqlite") {
        const claim = await b.explain(CLAIM_DUE, [NOW, '["sub_x"]', 50]);
        expect(claim).toMatch(/SEARCH d USING INDEX deliveries_due_idx \(due_at<\?\)/);
        expect(claim).not.toMatch(/TEMP B-TREE/); // rows come out of the index already in due order
        // The claim's lease, and a turn's outcomes: by primary key for each id of the batch, never a scan.
        expect(await b.explain(LEASE_MANY, [NOW, "w", "t", NOW, "[1,2]"])).toMatch(
          /SEARCH deliveries USING INTEGER PRIMARY KEY/,
        );
        const held = await b.explain(HELD_LEASES, ['[[1,"t"],[2,"t"]]']);
        expect(held).toMatch(/SEARCH d USING INTEGER PRIMARY KEY/);
        expect(held).not.toMatch(/\bSCAN (?!j\b)/);
        expect(await b.explain(SUBSCRIPTION_STATES, ['["sub_bulk_1"]'])).not.toMatch(/\bSCAN subscriptions/);
        const row = (id: number) => [id, "delivered", NOW, 1, 200, null, NOW, NOW];
        const insert = await b.explain(insertAttemptsSql(2), [
          1,
          NOW,
          200,
          1,
          null,
          null,
          2,
          NOW,
          200,
          1,
          null,
          null,
        ]);
        expect(insert).toMatch(/SEARCH d USING INTEGER PRIMARY KEY/);
        const update = await b.explain(updateDeliveriesSql(2), [...row(1), ...row(2)]);
        expect(update).toMatch(/SEARCH deliveries USING INTEGER PRIMARY KEY/);
        expect(update).not.toMatch(/\bSCAN deliveries/);
        expect(claim).toMatch(/SEARCH m USING INDEX sqlite_autoindex_messages_1 \(id=\?\)/);
        // The skipped ids are read once into a list (SCAN json_each); no table is scanned.
        expect(claim).not.toMatch(/\bSCAN (?!json_each)/);
        expect(await b.explain(CLAIMED_SUBSCRIPTION, ["s"])).not.toMatch(/\bSCAN\b/);
        // A rate-limited subscription's due rows: from the due index in due order, never its delivered history.
        const limited = await b.explain(LIMITED_DUE, [NOW, '["sub_bulk_3"]', 50]);
        expect(limited).toMatch(/SEARCH d USING INDEX deliveries_due_idx \(due_at<\?\)/);
        expect(limited).not.toMatch(/TEMP B-TREE|\bSCAN d\b/);
        expect(await b.explain(OLDEST_DUE, [NOW])).toMatch(
          /SEARCH deliveries USING INDEX deliveries_due_idx/,
        );
        expect(await b.explain(STATE_COUNTS)).not.toMatch(/deliveries\b/);
        // A subscription's deliveries (migration 6): disable walks the backlog, recover the failures, a list is
        // read newest first from the index, without a sort.
        expect(await b.explain(FAIL_PENDING_OF, ["e", NOW, NOW, "sub_bulk_1"])).toBe(
          "SCAN deliveries USING INDEX deliveries_due_idx",
        );
        expect(await b.explain(RECOVER_FAILED_OF, [NOW, NOW, "sub_bulk_1", 0])).toMatch(
          /SEARCH deliveries USING (COVERING )?INDEX deliveries_failed_idx \(subscription_id=\?\)/,
        );
        const failures = await b.explain(
          "SELECT * FROM deliveries WHERE subscription_id = ? AND state = ? AND id < ? ORDER BY id DESC LIMIT ?",
          ["sub_bulk_1", "failed", ROWS, 50],
        );
        expect(failures).toMatch(
          /SEARCH deliveries USING INDEX deliveries_failed_idx \(subscription_id=\? AND id<\?\)/,
        );
        expect(failures).not.toMatch(/TEMP B-TREE/);
        const list = await b.explain(
          "SELECT * FROM deliveries WHERE subscription_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
          ["sub_bulk_1", ROWS, 50],
        );
        expect(list).toMatch(/SEARCH deliveries USING INDEX deliveries_by_subscription_idx/);
        expect(list).not.toMatch(/TEMP B-TREE/);
      } else {
        const s = quoteIdent((await b.sql("SELECT {schema} AS s"))[0].s);
        const claim = await b.explain(claimSql(s), [
          NOW,
          50,
          NOW + 30_000,
          "w",
          "t",
          ["sub_x"],
          200,
          16,
          DISABLED_REASON,
        ]);
        expect(claim).toMatch(/Index Scan using deliveries_due_idx on deliveries/);
        expect(claim).not.toMatch(/Seq Scan on (deliveries|messages)/);
        // Due order comes from the index: no sort under the LIMIT (the final sort orders the 50 results).
        const dueCte = claim.slice(claim.indexOf("CTE candidates"), claim.indexOf("CTE leased"));
        expect(dueCte).toMatch(/Limit[\s\S]*LockRows[\s\S]*Index Scan using deliveries_due_idx/);
        expect(dueCte).not.toMatch(/Sort/);
        // A rate-limited subscription's due rows: from the due index in due order, never its delivered history.
        const limited = await b.explain(limitedDueSql(s), [NOW, ["sub_bulk_3"], 50]);
        expect(limited).toMatch(
          /Limit[\s\S]*LockRows[\s\S]*Index Scan using deliveries_due_idx on deliveries/,
        );
        expect(limited).not.toMatch(/Sort|Seq Scan/);
        const finish = await b.explain(
          finishManySql(s),
          finishManyParams(
            [
              outcomeOf({ id: 1, leaseToken: "t" }, "delivered", { status: 200, latencyMs: 1 }, NOW),
              outcomeOf({ id: 2, leaseToken: "t" }, "retry", { status: 503, latencyMs: 1 }, NOW, {
                nextAt: NOW + 5000,
              }),
            ],
            NOW,
          ),
        );
        expect(finish).toMatch(/Index Scan using deliveries_pkey on deliveries/);
        expect(finish).not.toMatch(/Seq Scan on deliveries/);
        expect(await b.explain(oldestDueSql(s), [NOW])).toMatch(
          /Index Only Scan using deliveries_due_idx|Index Scan using deliveries_due_idx/,
        );
        for (const sql of [stateCountsSql(s), compactCountsSql(s)])
          expect(await b.explain(sql)).not.toMatch(/deliveries\b/);
      }

      const expected = new Map(
        (await b.sql("SELECT state, count(*) AS n FROM {t}deliveries GROUP BY state")).map((r) => [
          r.state,
          Number(r.n),
        ]),
      );
      const t0 = Date.now();
      const stats = await store.outbox.stats();
      const statsMs = Date.now() - t0;
      expect(stats).toMatchObject({
        pending: expected.get("pending"),
        leased: expected.get("leased"),
        delivered: expected.get("delivered"),
        failed: expected.get("failed"),
      });
      expect(stats.pending + stats.leased + stats.delivered + stats.failed).toBe(ROWS);
      const [{ oldest }] = await b.sql(
        `SELECT min(due_at) AS oldest FROM {t}deliveries WHERE state IN ('pending', 'leased') AND due_at <= ${NOW}`,
      );
      expect(stats.oldestDueAt?.getTime()).toBe(Number(oldest));

      const t1 = Date.now();
      const claimed = await store.outbox.claim(50, { leaseMs: 30_000, workerId: "w" });
      const claimMs = Date.now() - t1;
      expect(claimed).toHaveLength(50);
      expect(claimed[0]!.dueAt.getTime()).toBe(Number(oldest));
      const dues = claimed.map((d) => d.dueAt.getTime());
      expect(dues).toEqual([...dues].sort((x, y) => x - y));
      expect(dues.every((t) => t <= NOW)).toBe(true);
      const after = await store.outbox.stats();
      expect(after.leased).toBeGreaterThanOrEqual(stats.leased);
      expect(after.pending + after.leased).toBe(stats.pending + stats.leased);
      console.info(
        `[backlog ${b.kind}] built ${ROWS} rows in ${built - started} ms; stats ${statsMs} ms; claim(50) ${claimMs} ms`,
      );
    }, 120_000);
  });
}
