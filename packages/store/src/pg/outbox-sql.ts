import type { MessageRow } from "../shared/rows.js";
import { scopeSql, TARGET_ID_PREFIX } from "../shared/target-scope.js";

/**
 * The PostgreSQL outbox statements, for a quoted schema `s`. Each hot path is ONE statement (no
 * BEGIN/COMMIT round trips), and the claim and the outcomes handle a whole batch each. The 1M-row test EXPLAINs
 * these exact texts.
 */

/**
 * Publish: insert the message (idempotency key unique) and fan out to every enabled subscription (the `sub_` id range:
 * destinations are the receiver's) that receives its type (`event_types` NULL = every type); NOTIFY idle workers, delivered at commit (so never for a
 * rolled-back transaction).
 * Params: id, idempotency key, body, now, channel, event type, trace context (JSON text or NULL), and with
 * `toApplication` the application id (only its subscriptions get a delivery; the message names it).
 */
export const publishSql = (s: string, toApplication = false) => `
WITH msg AS (
  INSERT INTO ${s}.messages (id, idempotency_key, body, created_at, event_type, trace_context${toApplication ? ", application_id" : ""})
  VALUES ($1, $2, $3, $4, $6, $7${toApplication ? ", $8" : ""})
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id
), fan_out AS (
  INSERT INTO ${s}.deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT msg.id, sub.id, 'pending', $4, $4, $4 FROM msg, ${s}.subscriptions sub
  WHERE ${scopeSql("sub.id", "sender")} AND ${toApplication ? "sub.application_id = $8 AND " : ""}sub.enabled
    AND (sub.event_types IS NULL OR $6 = ANY(sub.event_types)) ORDER BY sub.id
  RETURNING 1
), counted AS (SELECT count(*)::int AS n FROM fan_out)
SELECT (SELECT id FROM msg) AS id, counted.n AS deliveries,
       CASE WHEN counted.n > 0 THEN pg_notify($5, '') END AS notified
FROM counted`;

/**
 * The claim's transaction: the due rows (the sender's, the destinations', a rate-limited subscription's) are read in
 * the claim index's order, stopping at the scan limit, never all of them sorted. Without these settings the planner
 * sorts the whole due backlog whenever it believes it small (a table never analysed, or `left(subscription_id, 4)`
 * estimated rare), and a claim's cost grows with the backlog (apps/sender/BENCH.md, "Ten subscribers: the claim's
 * plan, and prepared statements").
 */
export const CLAIM_BEGIN = "BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off";

/**
 * Claim: the partial index deliveries_due_idx yields claimable rows in due order; SKIP LOCKED lets
 * concurrent claimers pass over each other's rows instead of queueing on them. Expired leases
 * (state 'leased', due_at = lease expiry in the past) are reclaimed by the same query. Subscriptions the
 * worker cannot serve now are skipped, and at most a cap per subscription is taken from the first `scan`
 * candidates (the others' row locks end with the statement). Candidates of a disabled subscription (a lease that
 * expired or was released after the disable) are failed, never leased; those of a rate-limited one are passed over
 * (the options claim, `claimLimitedSubscriptions`, takes them), so a limit holds even before this process knows of it.
 * Params: now, limit, lease expiry, worker id, lease token, subscription ids to skip, scan, cap, the error of a
 * failed candidate (`DISABLED_REASON`).
 */
export const claimSql = (s: string) => `
WITH candidates AS (
  SELECT id, due_at, attempts, subscription_id FROM ${s}.deliveries
  WHERE state IN ('pending', 'leased') AND due_at <= $1 AND NOT (subscription_id = ANY($6::text[]))
    AND left(subscription_id, 4) = '${TARGET_ID_PREFIX.sender}'
  ORDER BY due_at, id
  LIMIT $7
  FOR UPDATE SKIP LOCKED
), passed AS (
  SELECT c.id, sub.enabled FROM candidates c JOIN ${s}.subscriptions sub ON sub.id = c.subscription_id
  WHERE NOT sub.enabled OR sub.rate_limit IS NOT NULL
), dropped AS (
  UPDATE ${s}.deliveries d
  SET state = 'failed', due_at = $1, lease_owner = NULL, lease_token = NULL, last_error = $9,
      finished_at = $1, updated_at = $1
  FROM passed WHERE d.id = passed.id AND NOT passed.enabled
), due AS (
  SELECT id, due_at, attempts FROM (
    SELECT c.*, row_number() OVER (PARTITION BY subscription_id ORDER BY due_at, id) AS nth FROM candidates c
    WHERE c.id NOT IN (SELECT id FROM passed)
  ) ranked
  WHERE nth <= $8
  ORDER BY due_at, id
  LIMIT $2
), leased AS (
  UPDATE ${s}.deliveries d
  SET state = 'leased', due_at = $3, lease_owner = $4, lease_token = $5, updated_at = $1
  FROM due WHERE d.id = due.id
  RETURNING d.id, d.message_id, d.subscription_id, due.due_at AS was_due, due.attempts
)
SELECT l.id, l.was_due, l.attempts, m.id AS message_id, m.event_type, m.body, m.created_at, m.trace_context,
       sub.id AS subscription_id, sub.url, sub.token, sub.secrets::text AS secrets, sub.signing,
       sub.headers::text AS headers
FROM leased l
JOIN ${s}.messages m ON m.id = l.message_id
JOIN ${s}.subscriptions sub ON sub.id = l.subscription_id
ORDER BY l.was_due, l.id`;

/**
 * A turn's lease transitions as ONE statement, whatever their number. The rules are decided in TypeScript
 * (shared/outcomes.ts `LEASE_RULES`, `transitionOf`, `streakStep`) and arrive as values: each outcome (a row of the
 * parameter arrays, in order) carries its transition for an enabled and for a disabled subscription, and this
 * statement only checks its lease, picks the transition by whether its subscription is enabled (a disabling outcome
 * earlier in the turn disables it for the later ones), writes it, logs its attempt and folds each subscription's
 * streak steps in order (`failing_since = coalesce(keep ? failing_since : null, starts_at)`), writing only where the
 * value changes. A held disabling outcome disables its subscription (when enabled); its pending deliveries are
 * failed by `failPendingOfSql` in the same transaction. Returns the ordinal (1-based) of each outcome whose lease
 * held (the others were lost), with the subscription of each held disabling one.
 * Each lease is looked up by primary key (the locking subquery is never flattened): a join would let the planner
 * read the whole claim index when the backlog is a few thousand rows, a cost growing with the backlog.
 * Params (arrays, one element per outcome): $1 id, $2 lease token, $3 counted (an attempt to log), $4 attempted at,
 * $5 status, $6 latency, $7 response, $8 the attempt's error; the transition if enabled: $9 state, $10 due (NULL
 * keeps), $11 error, $12 finished at; if disabled: $13..$16 the same; $17 streak keep, $18 streak starts at,
 * $19 disables. Then $20 now, $21 the reason of a disable.
 */
export const finishManySql = (s: string) => `
WITH items AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::bigint[], $5::integer[], $6::integer[],
                       $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::bigint[], $13::text[],
                       $14::bigint[], $15::text[], $16::bigint[], $17::boolean[], $18::bigint[], $19::boolean[])
    WITH ORDINALITY AS i(id, lease_token, counted, attempted_at, status, latency_ms, response_body, attempt_error,
                         on_state, on_due, on_error, on_finished, off_state, off_due, off_error, off_finished,
                         keep, starts_at, disables, ord)
), cur AS (
  SELECT d.id, d.subscription_id, d.attempts, d.lease_owner, sub.enabled AS was_enabled, i.counted, i.attempted_at,
         i.status, i.latency_ms, i.response_body, i.attempt_error, i.on_state, i.on_due, i.on_error, i.on_finished,
         i.off_state, i.off_due, i.off_error, i.off_finished, i.keep, i.starts_at, i.disables, i.ord
  FROM items i
  CROSS JOIN LATERAL (
    SELECT id, subscription_id, attempts, lease_owner FROM ${s}.deliveries
    WHERE id = i.id AND lease_token = i.lease_token AND state = 'leased'
    FOR UPDATE
  ) d
  JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
), live AS (
  SELECT cur.*, was_enabled AND NOT coalesce(bool_or(disables) OVER (PARTITION BY subscription_id
         ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS enabled
  FROM cur
), nxt AS (
  SELECT id, subscription_id, lease_owner, counted, attempted_at, status, latency_ms, response_body, attempt_error,
         keep, starts_at, disables, ord, attempts + CASE WHEN counted THEN 1 ELSE 0 END AS new_attempts,
         CASE WHEN enabled THEN on_state ELSE off_state END AS state,
         CASE WHEN enabled THEN on_due ELSE off_due END AS due,
         CASE WHEN enabled THEN on_error ELSE off_error END AS error,
         CASE WHEN enabled THEN on_finished ELSE off_finished END AS finished
  FROM live
), upd AS (
  UPDATE ${s}.deliveries d SET
    state = nxt.state,
    due_at = coalesce(nxt.due, d.due_at),
    attempts = nxt.new_attempts,
    last_status = CASE WHEN nxt.counted THEN nxt.status ELSE d.last_status END,
    last_error = CASE WHEN nxt.counted OR nxt.error IS NOT NULL THEN nxt.error ELSE d.last_error END,
    lease_owner = CASE WHEN nxt.state = 'leased' THEN d.lease_owner END,
    lease_token = CASE WHEN nxt.state = 'leased' THEN d.lease_token END,
    finished_at = nxt.finished,
    updated_at = $20::bigint
  FROM nxt WHERE d.id = nxt.id
  RETURNING nxt.ord, CASE WHEN nxt.disables THEN nxt.subscription_id END AS gone
), logged AS (
  INSERT INTO ${s}.delivery_attempts
    (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
  SELECT id, new_attempts, attempted_at, status, latency_ms, response_body, attempt_error, lease_owner
  FROM nxt WHERE counted ORDER BY ord
), steps AS (
  SELECT subscription_id, ord, keep, starts_at, disables FROM nxt WHERE NOT keep OR starts_at IS NOT NULL OR disables
), per_sub AS (
  SELECT subscription_id, max(ord) FILTER (WHERE NOT keep) AS reset_ord, bool_or(disables) AS disables
  FROM steps GROUP BY subscription_id
), net AS (
  SELECT p.subscription_id, p.disables, p.reset_ord IS NOT NULL AS reset,
         (SELECT f.starts_at FROM steps f
          WHERE f.subscription_id = p.subscription_id AND f.ord >= coalesce(p.reset_ord, 0) AND f.starts_at IS NOT NULL
          ORDER BY f.ord LIMIT 1) AS first_start
  FROM per_sub p
), next_sub AS (
  SELECT net.subscription_id, net.disables AND sub.enabled AS disabling,
         coalesce(CASE WHEN NOT net.reset THEN sub.failing_since END, net.first_start) AS failing_since
  FROM net JOIN ${s}.subscriptions sub ON sub.id = net.subscription_id
), streak AS (
  UPDATE ${s}.subscriptions sub
  SET failing_since = n.failing_since,
      enabled = sub.enabled AND NOT n.disabling,
      disabled_reason = CASE WHEN n.disabling THEN $21::text ELSE sub.disabled_reason END,
      disabled_at = CASE WHEN n.disabling THEN $20::bigint ELSE sub.disabled_at END,
      updated_at = CASE WHEN n.disabling THEN $20::bigint ELSE sub.updated_at END
  FROM next_sub n
  WHERE sub.id = n.subscription_id AND (n.disabling OR sub.failing_since IS DISTINCT FROM n.failing_since)
)
SELECT ord, gone FROM upd`;

/**
 * Fails the pending deliveries of disabled subscriptions (they would never be claimed usefully; `recover` brings them
 * back), through deliveries_subscription_idx. Params: subscription ids, error, now.
 */
export const failPendingOfSql = (s: string) => `
UPDATE ${s}.deliveries SET state = 'failed', last_error = $2, finished_at = $3, updated_at = $3
WHERE subscription_id = ANY($1::text[]) AND state = 'pending'`;

/** Folds the appended counter deltas into one row per state (concurrent writers only insert). */
export const compactCountsSql = (s: string) => `
WITH gone AS (DELETE FROM ${s}.delivery_counts RETURNING state, delta)
INSERT INTO ${s}.delivery_counts (state, delta)
SELECT state, sum(delta) FROM gone GROUP BY state HAVING sum(delta) <> 0`;

/** Depth by state from the counters (migration 2). */
export const stateCountsSql = (s: string) =>
  `SELECT state, sum(delta) AS n FROM ${s}.delivery_counts GROUP BY state`;

/** The longest-waiting claimable row. Param: now. */
export const oldestDueSql = (s: string) => `
SELECT due_at FROM ${s}.deliveries WHERE state IN ('pending', 'leased') AND due_at <= $1
ORDER BY due_at, id LIMIT 1`;

/** The destinations' claim, step one: every destination's claim columns, locked against other claims. */
export const destinationClaimRowsSql = (
  s: string,
) => `SELECT id, url, enabled, paused, ordered, max_in_flight, rate_limit,
  next_send_at FROM ${s}.subscriptions WHERE ${scopeSql("id", "receiver")} ORDER BY id FOR NO KEY UPDATE`;

/** Step two: due rows of destinations in due order. Params: now, ids to skip, scan. */
export const destinationDueSql = (s: string) => `SELECT id, subscription_id FROM ${s}.deliveries
WHERE state IN ('pending', 'leased') AND due_at <= $1 AND left(subscription_id, 4) = '${TARGET_ID_PREFIX.receiver}'
  AND NOT (subscription_id = ANY($2::text[]))
ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`;

/** Ordered destinations' heads: each one's oldest unfinished delivery. Param: ids. */
export const headsSql = (s: string) => `SELECT subscription_id, min(id) AS head FROM ${s}.deliveries
WHERE state IN ('pending', 'leased') AND subscription_id = ANY($1::text[]) GROUP BY subscription_id`;

/** Destinations' leases not expired. Params: ids, now. */
export const inFlightSql = (s: string) => `SELECT subscription_id, count(*) AS n FROM ${s}.deliveries
WHERE state = 'leased' AND subscription_id = ANY($1::text[]) AND due_at > $2 GROUP BY subscription_id`;

/**
 * Leases the picked rows and returns what the worker sends: a forward's inbox event bytes and original webhook-id.
 * Params: ids, lease expiry, worker id, lease token, now.
 */
export const leaseForwardsSql = (s: string) => `
WITH leased AS (
  UPDATE ${s}.deliveries d SET state = 'leased', due_at = $2, lease_owner = $3, lease_token = $4, updated_at = $5
  FROM (SELECT id, due_at, attempts FROM ${s}.deliveries WHERE id = ANY($1::bigint[])) was
  WHERE d.id = was.id
  RETURNING d.id, d.message_id, d.subscription_id, was.due_at AS was_due, was.attempts
)
SELECT l.id, l.was_due, l.attempts, coalesce(i.webhook_id, m.id) AS message_id, m.event_type,
       coalesce(i.body, m.body) AS body, m.created_at, m.trace_context, sub.id AS subscription_id, sub.url, sub.token,
       sub.secrets::text AS secrets, sub.signing, sub.headers::text AS headers, sub.timeout_ms, sub.max_in_flight,
       sub.ordered
FROM leased l
JOIN ${s}.messages m ON m.id = l.message_id
LEFT JOIN ${s}.inbox_events i ON i.seq = m.inbox_seq
JOIN ${s}.subscriptions sub ON sub.id = l.subscription_id
ORDER BY l.was_due, l.id`;

/** Fails a disabled destination's due rows. Params: ids, now, error. */
export const failDisabledSql = (s: string) => `UPDATE ${s}.deliveries
SET state = 'failed', due_at = $2, lease_owner = NULL, lease_token = NULL, last_error = $3, finished_at = $2,
    updated_at = $2
WHERE id = ANY($1::bigint[])`;

/** Rate-limited destinations' next send times. Params: ids, times. */
export const setNextSendSql = (s: string) => `UPDATE ${s}.subscriptions sub SET next_send_at = v.at
FROM unnest($1::text[], $2::bigint[]) AS v(id, at) WHERE sub.id = v.id`;

/** The sender's subscriptions with a rate limit (read at most once a second per process: `RateLimitedGate`). */
export const rateLimitedSql = (s: string) => `SELECT id FROM ${s}.subscriptions
WHERE ${scopeSql("id", "sender")} AND rate_limit IS NOT NULL ORDER BY id`;

/**
 * The options claim of rate-limited subscriptions, step one: their claim columns, locked against other senders'
 * claims in id order. Param: ids.
 */
export const limitedClaimRowsSql = (s: string) => `SELECT id, url, enabled, paused, ordered, max_in_flight,
  rate_limit, next_send_at FROM ${s}.subscriptions WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`;

/** Step two: their due rows in due order. Params: now, ids, scan. */
export const limitedDueSql = (s: string) => `SELECT id, subscription_id FROM ${s}.deliveries
WHERE state IN ('pending', 'leased') AND due_at <= $1 AND subscription_id = ANY($2::text[])
ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`;

/** A stored message with its fan-out count: what a replayed key answers with. */
export type StoredMessage = MessageRow & { deliveries: number };

/**
 * The stored messages under some idempotency keys, each with its fan-out count (through deliveries_message_idx).
 * `condition` completes `m.idempotency_key …` (`= $1`, `= ANY($1::text[])`).
 */
export const storedByKeySql = (s: string, condition: string) =>
  `SELECT m.*, (SELECT count(*)::int FROM ${s}.deliveries d WHERE d.message_id = m.id) AS deliveries
   FROM ${s}.messages m WHERE m.idempotency_key ${condition}`;
