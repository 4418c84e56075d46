/**
 * The PostgreSQL outbox statements, for a quoted schema `s`. Each hot path is ONE statement (no
 * BEGIN/COMMIT round trips). The 1M-row test EXPLAINs these exact texts.
 */

/**
 * Publish: insert the message (idempotency key unique) and fan out to every enabled subscription that receives
 * its type (`event_types` NULL = every type); NOTIFY idle workers, delivered at commit (so never for a
 * rolled-back transaction).
 * Params: id, idempotency key, body, now, channel, event type.
 */
export const publishSql = (s: string) => `
WITH msg AS (
  INSERT INTO ${s}.messages (id, idempotency_key, body, created_at, event_type) VALUES ($1, $2, $3, $4, $6)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id
), fan_out AS (
  INSERT INTO ${s}.deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT msg.id, sub.id, 'pending', $4, $4, $4 FROM msg, ${s}.subscriptions sub
  WHERE sub.enabled AND (sub.event_types IS NULL OR $6 = ANY(sub.event_types)) ORDER BY sub.id
  RETURNING 1
), counted AS (SELECT count(*)::int AS n FROM fan_out)
SELECT (SELECT id FROM msg) AS id, counted.n AS deliveries,
       CASE WHEN counted.n > 0 THEN pg_notify($5, '') END AS notified
FROM counted`;

/**
 * Claim: the partial index deliveries_due_idx yields claimable rows in due order; SKIP LOCKED lets
 * concurrent claimers pass over each other's rows instead of queueing on them. Expired leases
 * (state 'leased', due_at = lease expiry in the past) are reclaimed by the same query. Subscriptions the
 * worker cannot serve now are skipped, and at most a cap per subscription is taken from the first `scan`
 * candidates (the others' row locks end with the statement). Candidates of a disabled subscription (a lease that
 * expired or was released after the disable) are failed, never leased.
 * Params: now, limit, lease expiry, worker id, lease token, subscription ids to skip, scan, cap.
 */
export const claimSql = (s: string) => `
WITH candidates AS (
  SELECT id, due_at, attempts, subscription_id FROM ${s}.deliveries
  WHERE state IN ('pending', 'leased') AND due_at <= $1 AND NOT (subscription_id = ANY($6::text[]))
  ORDER BY due_at, id
  LIMIT $7
  FOR UPDATE SKIP LOCKED
), disabled AS (
  SELECT c.id FROM candidates c JOIN ${s}.subscriptions sub ON sub.id = c.subscription_id WHERE NOT sub.enabled
), dropped AS (
  UPDATE ${s}.deliveries d
  SET state = 'failed', due_at = $1, lease_owner = NULL, lease_token = NULL, last_error = 'subscription disabled',
      finished_at = $1, updated_at = $1
  FROM disabled WHERE d.id = disabled.id
), due AS (
  SELECT id, due_at, attempts FROM (
    SELECT c.*, row_number() OVER (PARTITION BY subscription_id ORDER BY due_at, id) AS nth FROM candidates c
    WHERE c.id NOT IN (SELECT id FROM disabled)
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
SELECT l.id, l.was_due, l.attempts, m.id AS message_id, m.event_type, m.body, m.created_at,
       sub.id AS subscription_id, sub.url, sub.token, sub.secrets, sub.signing
FROM leased l
JOIN ${s}.messages m ON m.id = l.message_id
JOIN ${s}.subscriptions sub ON sub.id = l.subscription_id
ORDER BY l.was_due, l.id`;

/**
 * A lease transition: check the lease, move the state, log the attempt, keep the failure streak.
 * Params: $1 id, $2 lease token, $3 outcome (attempt = log only | delivered | retry | failed |
 * release), $4 next due, $5 now, $6 has attempt, $7 attempted at, $8 status, $9 latency,
 * $10 response, $11 error, $12 reason, $13 streak ('ok' | 'fail' | 'none').
 */
export const finishSql = (s: string) => `
WITH cur AS (
  SELECT d.id, d.subscription_id, d.attempts, d.lease_owner, sub.enabled
  FROM ${s}.deliveries d JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
  WHERE d.id = $1 AND d.lease_token = $2 AND d.state = 'leased'
  FOR UPDATE OF d
), nxt AS (
  SELECT cur.*,
         CASE WHEN $3::text = 'attempt' THEN 'leased'
              WHEN $3::text IN ('delivered', 'failed') THEN $3::text
              WHEN $3::text IN ('retry', 'release') AND NOT cur.enabled THEN 'failed'
              ELSE 'pending' END AS state,
         cur.attempts + CASE WHEN $6::boolean THEN 1 ELSE 0 END AS new_attempts
  FROM cur
), upd AS (
  UPDATE ${s}.deliveries d SET
    state = nxt.state,
    due_at = CASE WHEN nxt.state = 'leased' THEN d.due_at WHEN nxt.state = 'pending' THEN $4::bigint ELSE $5::bigint END,
    attempts = nxt.new_attempts,
    last_status = CASE WHEN $6::boolean THEN $8::integer ELSE d.last_status END,
    last_error = coalesce($12::text,
                          CASE WHEN $3::text IN ('retry', 'release') AND NOT nxt.enabled THEN 'subscription disabled' END,
                          CASE WHEN $6::boolean THEN $11::text ELSE d.last_error END),
    lease_owner = CASE WHEN nxt.state = 'leased' THEN d.lease_owner END,
    lease_token = CASE WHEN nxt.state = 'leased' THEN d.lease_token END,
    finished_at = CASE WHEN nxt.state IN ('delivered', 'failed') THEN $5::bigint END,
    updated_at = $5::bigint
  FROM nxt WHERE d.id = nxt.id
  RETURNING d.id
), logged AS (
  INSERT INTO ${s}.delivery_attempts
    (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
  SELECT nxt.id, nxt.new_attempts, $7::bigint, $8::integer, $9::integer, $10::text, $11::text, nxt.lease_owner
  FROM nxt WHERE $6::boolean
), streak AS (
  UPDATE ${s}.subscriptions sub SET failing_since = CASE WHEN $13::text = 'ok' THEN NULL ELSE $7::bigint END
  FROM nxt
  WHERE sub.id = nxt.subscription_id
    AND (($13::text = 'ok' AND sub.failing_since IS NOT NULL) OR ($13::text = 'fail' AND sub.failing_since IS NULL))
)
SELECT count(*)::int AS n FROM upd`;

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
