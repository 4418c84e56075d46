import { TARGET_ID_PREFIX } from "../shared/target-scope.js";

/**
 * The PostgreSQL outbox statements, for a quoted schema `s`. Each hot path is ONE statement (no
 * BEGIN/COMMIT round trips), and the claim and the outcomes handle a whole batch each. The 1M-row test EXPLAINs
 * these exact texts.
 */

/**
 * Publish: insert the message (idempotency key unique) and fan out to every enabled subscription (the `sub_` id range:
 * destinations are the receiver's) that receives its type (`event_types` NULL = every type); NOTIFY idle workers, delivered at commit (so never for a
 * rolled-back transaction).
 * Params: id, idempotency key, body, now, channel, event type, trace context (JSON text or NULL).
 */
export const publishSql = (s: string) => `
WITH msg AS (
  INSERT INTO ${s}.messages (id, idempotency_key, body, created_at, event_type, trace_context)
  VALUES ($1, $2, $3, $4, $6, $7)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id
), fan_out AS (
  INSERT INTO ${s}.deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
  SELECT msg.id, sub.id, 'pending', $4, $4, $4 FROM msg, ${s}.subscriptions sub
  WHERE sub.id >= 'sub_' AND sub.id < 'sub\`' AND sub.enabled AND (sub.event_types IS NULL OR $6 = ANY(sub.event_types))
  ORDER BY sub.id
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
    AND left(subscription_id, 4) = '${TARGET_ID_PREFIX.sender}'
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
SELECT l.id, l.was_due, l.attempts, m.id AS message_id, m.event_type, m.body, m.created_at, m.trace_context,
       sub.id AS subscription_id, sub.url, sub.token, sub.secrets::text AS secrets, sub.signing
FROM leased l
JOIN ${s}.messages m ON m.id = l.message_id
JOIN ${s}.subscriptions sub ON sub.id = l.subscription_id
ORDER BY l.was_due, l.id`;

/**
 * A turn's lease transitions as ONE statement, whatever their number: each outcome (a row of the parameter arrays,
 * in order) checks its lease, moves the delivery's state and logs its attempt; each subscription's failure streak
 * moves once, by the net effect of its outcomes in order (an `ok` clears it, a `fail` starts it at its time if there
 * is none), and only where it changes. A `gone` outcome disables its subscription (when enabled), and the turn's
 * later outcomes of that subscription see it disabled; its pending deliveries are failed by `failPendingOfSql` in
 * the same transaction. Returns the ordinal (1-based) of each outcome whose lease held (the others were lost), with
 * the subscription of each held `gone`. The same rules as `transitionOf` and `netStreaks` in shared/outcomes.ts,
 * which SQLite runs in JS.
 * Params (arrays, one element per outcome): $1 id, $2 lease token, $3 outcome (attempt = log only | delivered |
 * retry | failed | gone | release), $4 next due, $5 has attempt, $6 attempted at (now without one), $7 status,
 * $8 latency, $9 response, $10 error, $11 reason; $12 now, $13 the disabled reason of a gone subscription, $14 the
 * error of a delivery whose subscription is disabled.
 */
export const finishManySql = (s: string) => `
WITH items AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::bigint[],
                       $7::integer[], $8::integer[], $9::text[], $10::text[], $11::text[])
    WITH ORDINALITY AS i(id, lease_token, outcome, next_at, has_attempt, attempted_at, status, latency_ms,
                         response_body, error, reason, ord)
), cur AS (
  SELECT d.id, d.subscription_id, d.attempts, d.lease_owner, sub.enabled AS was_enabled, i.outcome, i.next_at,
         i.has_attempt, i.attempted_at, i.status, i.latency_ms, i.response_body, i.error, i.reason, i.ord
  FROM items i
  JOIN ${s}.deliveries d ON d.id = i.id AND d.lease_token = i.lease_token AND d.state = 'leased'
  JOIN ${s}.subscriptions sub ON sub.id = d.subscription_id
  FOR UPDATE OF d
), live AS (
  SELECT cur.*, was_enabled AND NOT coalesce(bool_or(outcome = 'gone') OVER (PARTITION BY subscription_id
         ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS enabled
  FROM cur
), nxt AS (
  SELECT live.*,
         CASE WHEN outcome = 'attempt' THEN 'leased'
              WHEN outcome = 'delivered' THEN 'delivered'
              WHEN outcome IN ('failed', 'gone') THEN 'failed'
              WHEN NOT enabled THEN 'failed'
              ELSE 'pending' END AS state,
         attempts + CASE WHEN has_attempt THEN 1 ELSE 0 END AS new_attempts,
         CASE WHEN outcome = 'delivered' THEN 'ok' WHEN outcome IN ('attempt', 'release') THEN 'none' ELSE 'fail' END
           AS streak
  FROM live
), upd AS (
  UPDATE ${s}.deliveries d SET
    state = nxt.state,
    due_at = CASE WHEN nxt.state = 'leased' THEN d.due_at WHEN nxt.state = 'pending' THEN nxt.next_at ELSE $12::bigint END,
    attempts = nxt.new_attempts,
    last_status = CASE WHEN nxt.has_attempt THEN nxt.status ELSE d.last_status END,
    last_error = coalesce(nxt.reason,
                          CASE WHEN nxt.outcome IN ('retry', 'release') AND NOT nxt.enabled THEN $14::text END,
                          CASE WHEN nxt.has_attempt THEN nxt.error ELSE d.last_error END),
    lease_owner = CASE WHEN nxt.state = 'leased' THEN d.lease_owner END,
    lease_token = CASE WHEN nxt.state = 'leased' THEN d.lease_token END,
    finished_at = CASE WHEN nxt.state IN ('delivered', 'failed') THEN $12::bigint END,
    updated_at = $12::bigint
  FROM nxt WHERE d.id = nxt.id
  RETURNING nxt.ord, CASE WHEN nxt.outcome = 'gone' THEN nxt.subscription_id END AS gone
), logged AS (
  INSERT INTO ${s}.delivery_attempts
    (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
  SELECT id, new_attempts, attempted_at, status, latency_ms, response_body, error, lease_owner
  FROM nxt WHERE has_attempt ORDER BY ord
), streaks AS (
  SELECT subscription_id, ord, streak, outcome, attempted_at FROM nxt WHERE streak <> 'none'
), last_ok AS (
  SELECT subscription_id, max(ord) FILTER (WHERE streak = 'ok') AS ok_ord, bool_or(outcome = 'gone') AS gone
  FROM streaks GROUP BY subscription_id
), net AS (
  SELECT l.subscription_id, l.gone, l.ok_ord IS NOT NULL AS cleared,
         (SELECT f.attempted_at FROM streaks f
          WHERE f.subscription_id = l.subscription_id AND f.streak = 'fail' AND f.ord > coalesce(l.ok_ord, 0)
          ORDER BY f.ord LIMIT 1) AS first_fail
  FROM last_ok l
), next_sub AS (
  SELECT net.subscription_id, net.gone AND sub.enabled AS disabling,
         CASE WHEN net.cleared THEN net.first_fail ELSE coalesce(sub.failing_since, net.first_fail) END AS failing_since
  FROM net JOIN ${s}.subscriptions sub ON sub.id = net.subscription_id
), streak AS (
  UPDATE ${s}.subscriptions sub
  SET failing_since = n.failing_since,
      enabled = sub.enabled AND NOT n.disabling,
      disabled_reason = CASE WHEN n.disabling THEN $13::text ELSE sub.disabled_reason END,
      disabled_at = CASE WHEN n.disabling THEN $12::bigint ELSE sub.disabled_at END,
      updated_at = CASE WHEN n.disabling THEN $12::bigint ELSE sub.updated_at END
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
) => `SELECT id, enabled, paused, ordered, max_in_flight, rate_limit,
  next_send_at FROM ${s}.subscriptions WHERE id >= 'dst_' AND id < 'dst\`' FOR NO KEY UPDATE`;

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
