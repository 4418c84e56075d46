import { scopeSql, TARGET_ID_PREFIX } from "../shared/target-scope.js";

/**
 * The SQLite outbox statements whose plans matter (the 1M-row test EXPLAINs these exact texts), and the inbox's
 * multi-row insert.
 * SQLite has one writer, so a claim is a SELECT of the due rows and one UPDATE leasing the picked ones in one
 * IMMEDIATE transaction — no other connection can take the same rows in between. A turn's outcomes are one SELECT
 * of the leases that hold, one of their subscriptions, one multi-row INSERT of attempts and one multi-row UPDATE of
 * deliveries.
 */

/**
 * Due rows in due order through the partial index `deliveries_due_idx`, each with its message (primary-key
 * lookup), so a claim runs one SELECT for the batch instead of one per row. Subscriptions the worker cannot
 * serve now are left out. With each row its subscription's `enabled`: a disabled subscription's rows (a lease
 * that expired or was released after the disable) are failed by the claim, never leased. Then the message's trace
 * context (migration 5), and whether the subscription has a rate limit (its rows are left to the options claim).
 * Params: now, subscription ids to skip (JSON array), limit.
 */
export const CLAIM_DUE = `SELECT d.id, d.due_at, d.attempts, d.subscription_id, m.id AS message_id, m.event_type, m.body,
  m.created_at,
  s.enabled,
  m.trace_context,
  s.rate_limit IS NOT NULL AS limited
FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN subscriptions s ON s.id = d.subscription_id
WHERE d.state IN ('pending', 'leased') AND d.due_at <= ? AND substr(d.subscription_id, 1, 4) = '${TARGET_ID_PREFIX.sender}'
  AND d.subscription_id NOT IN (SELECT value FROM json_each(?))
ORDER BY d.due_at, d.id LIMIT ?`;

/**
 * The destinations' claim, step one: every destination's claim columns (a handful of rows, read whole).
 */
export const DESTINATION_CLAIM_ROWS = `SELECT id, url, enabled, paused, ordered, max_in_flight, rate_limit, next_send_at,
  forward_seq, event_types
FROM subscriptions WHERE ${scopeSql("id", "receiver")}`;

/**
 * The destinations' claim, step two: due rows of destinations in due order (the scope's prefix tested, never
 * used as an index), those skipped left out. Params: now, ids to skip (JSON array), scan.
 */
export const DESTINATION_DUE = `SELECT d.id, d.subscription_id FROM deliveries d
WHERE d.state IN ('pending', 'leased') AND d.due_at <= ? AND substr(d.subscription_id, 1, 4) = '${TARGET_ID_PREFIX.receiver}'
  AND d.subscription_id NOT IN (SELECT value FROM json_each(?))
ORDER BY d.due_at, d.id LIMIT ?`;

/** The sender's subscriptions with a rate limit (read at most once a second: `RateLimitedGate`). */
export const RATE_LIMITED = `SELECT id FROM subscriptions
WHERE ${scopeSql("id", "sender")} AND rate_limit IS NOT NULL ORDER BY id`;

/** The options claim of rate-limited subscriptions, step one: their claim columns. Param: ids (JSON array). */
export const LIMITED_CLAIM_ROWS = `SELECT id, url, enabled, paused, ordered, max_in_flight, rate_limit, next_send_at
FROM subscriptions WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`;

/**
 * Step two: their due rows in due order, from the due index (named: without statistics the planner would take the
 * subscription index and walk each one's delivered history). Params: now, ids (JSON array), scan.
 */
export const LIMITED_DUE = `SELECT d.id, d.subscription_id FROM deliveries d INDEXED BY deliveries_due_idx
WHERE d.state IN ('pending', 'leased') AND d.due_at <= ? AND d.subscription_id IN (SELECT value FROM json_each(?))
ORDER BY d.due_at, d.id LIMIT ?`;

/** An ordered destination's head: its oldest unfinished delivery, through the due index (its backlog only). */
export const HEAD_OF = `SELECT min(id) FROM deliveries INDEXED BY deliveries_due_idx
WHERE state IN ('pending', 'leased') AND subscription_id = ?`;

/** A destination's leases not expired. Params: id, now. */
export const IN_FLIGHT_OF = `SELECT count(*) FROM deliveries INDEXED BY deliveries_due_idx
WHERE state IN ('pending', 'leased') AND state = 'leased' AND subscription_id = ? AND due_at > ?`;

/**
 * The leased forwards with what the worker sends: the inbox event's exact bytes and original webhook-id for a
 * forward (its message has no body of its own), the message's otherwise. Param: ids (JSON array).
 */
export const LEASED_FORWARDS = `SELECT d.id, d.due_at, d.attempts, d.subscription_id,
  coalesce(i.webhook_id, m.id) AS message_id, m.event_type, coalesce(i.body, m.body) AS body, m.created_at,
  m.trace_context
FROM json_each(?) j CROSS JOIN deliveries d ON d.id = j.value JOIN messages m ON m.id = d.message_id
LEFT JOIN inbox_events i ON i.seq = m.inbox_seq
ORDER BY d.due_at, d.id`;

/** What a worker needs of a claimed destination. Param: its id. */
export const CLAIMED_DESTINATION = `SELECT id, url, token, secrets, signing, headers, timeout_ms, max_in_flight, ordered
FROM subscriptions WHERE id = ?`;

/** A rate-limited destination's next send time. Params: time, id. */
export const SET_NEXT_SEND = "UPDATE subscriptions SET next_send_at = ? WHERE id = ?";

/** A due row of a disabled subscription. Params: now, reason, now, now, delivery id. */
export const FAIL_DISABLED = `UPDATE deliveries SET state = 'failed', due_at = ?, lease_owner = NULL, lease_token = NULL,
  last_error = ?, finished_at = ?, updated_at = ? WHERE id = ?`;

/** What a worker needs of a claimed delivery's subscription: read once per subscription per claim. Param: its id. */
export const CLAIMED_SUBSCRIPTION =
  "SELECT id, url, token, secrets, signing, headers FROM subscriptions WHERE id = ?";

/** Disables a subscription that is enabled (a disabled one keeps its reason). Params: reason, now, now, id. */
export const DISABLE_ENABLED = `UPDATE subscriptions SET enabled = 0, disabled_reason = ?, disabled_at = ?, updated_at = ?
WHERE id = ? AND enabled = 1`;

/**
 * A disabled subscription's pending deliveries, failed so that `recover` can bring them back. Through the due index:
 * it walks the backlog of every subscription, never the subscription's whole history.
 * The `state IN` term is the partial index's own condition, which SQLite needs to use it. `INDEXED BY`, because the
 * planner's guess is the subscription's index (without statistics) or a scan of the table (when most rows are
 * due). Run once per disable, only when the subscription was enabled. Params: error, now, now, subscription id.
 */
export const FAIL_PENDING_OF = `UPDATE deliveries INDEXED BY deliveries_due_idx
SET state = 'failed', last_error = ?, finished_at = ?, updated_at = ?
WHERE state IN ('pending', 'leased') AND state = 'pending' AND subscription_id = ?`;

/**
 * A subscription's failed deliveries created since a time, back to pending, through the partial index of failures.
 * Params: now, now, subscription id, since.
 */
export const RECOVER_FAILED_OF = `UPDATE deliveries SET state = 'pending', due_at = ?, attempts = 0, finished_at = NULL,
  updated_at = ?
WHERE subscription_id = ? AND state = 'failed' AND created_at >= ?`;

/**
 * O(1) depth by state: the view of migration 7, what entered each state minus what left it, from the transition
 * counters kept by triggers (20 rows).
 */
export const STATE_COUNTS = "SELECT state, n FROM delivery_counts";

/** The longest-waiting claimable row. Param: now. */
export const OLDEST_DUE = `SELECT due_at FROM deliveries WHERE state IN ('pending', 'leased') AND due_at <= ?
ORDER BY due_at, id LIMIT 1`;

/**
 * Which of a turn's leases still hold, by primary key: each delivery whose id and lease token match, with its
 * subscription, as one JSON object `{ "<id>": "<subscription id>" }` (one value for the turn: better-sqlite3 builds a
 * row's array through V8's API value by value, which costs more than the JSON). Param: `[[id, lease token], …]`
 * (JSON). An outcome whose lease is not in it was lost.
 */
export const HELD_LEASES = `SELECT json_group_object(d.id, d.subscription_id) FROM json_each(?) j
CROSS JOIN deliveries d ON d.id = j.value ->> 0
WHERE d.lease_token = j.value ->> 1 AND d.state = 'leased'`;

/**
 * Whether each subscription of a turn's outcomes is enabled, and since when it fails. Param: ids (JSON array).
 * CROSS JOIN keeps the ids outside: a lookup each, never a scan of the subscriptions.
 */
export const SUBSCRIPTION_STATES = `SELECT s.id, s.enabled, s.failing_since
FROM json_each(?) j CROSS JOIN subscriptions s ON s.id = j.value`;

/** `(?, ?), (?, ?)`: the placeholders of `rows` rows of `width` values. */
const rowsOf = (rows: number, width: number) =>
  Array.from({ length: rows }, () => `(${Array(width).fill("?").join(", ")})`).join(", ");

/** The text of a multi-row statement, built once per row count (the same string object hashes once in the cache). */
function bySize(build: (rows: number) => string): (rows: number) => string {
  const texts: string[] = [];
  return (rows) => {
    let text = texts[rows];
    if (text === undefined) texts[rows] = text = build(rows);
    return text;
  };
}

/** One INSERT of `rows` inbox events, no conflict clause (sqlite-inbox.ts tells duplicates apart). */
export const insertInboxEventsSql = bySize(
  (rows) =>
    `INSERT INTO inbox_events (webhook_id, event_type, body, headers, received_at) VALUES ${rowsOf(rows, 5)}`,
);

/**
 * One INSERT of `rows` attempts, numbered and attributed from their deliveries (run before the deliveries move on).
 * Params per row: delivery id, attempted at, status, latency, response body, error.
 */
export const insertAttemptsSql = bySize(
  (rows) => `INSERT INTO delivery_attempts
  (delivery_id, attempt, attempted_at, status, latency_ms, response_body, error, worker_id)
SELECT d.id, d.attempts + 1, v.column2, v.column3, v.column4, v.column5, v.column6, d.lease_owner
FROM (VALUES ${rowsOf(rows, 6)}) AS v JOIN deliveries d ON d.id = v.column1`,
);

/**
 * One UPDATE of `rows` deliveries to their outcomes' transitions (shared/outcomes.ts `transitionOf`): a NULL due time
 * keeps the lease's; a counted attempt adds one attempt and sets the last status; the last error is kept when
 * nothing was attempted and no reason given; the lease stays only with a delivery that stays leased. Params per
 * row: id, state, due at, counted (0/1), status, error, finished at, now.
 */
export const updateDeliveriesSql = bySize(
  (rows) => `UPDATE deliveries SET state = v.column2, due_at = coalesce(v.column3, due_at),
  attempts = attempts + v.column4,
  last_status = CASE WHEN v.column4 = 1 THEN v.column5 ELSE last_status END,
  last_error = CASE WHEN v.column4 = 1 OR v.column6 IS NOT NULL THEN v.column6 ELSE last_error END,
  finished_at = v.column7, updated_at = v.column8,
  lease_owner = CASE WHEN v.column2 = 'leased' THEN lease_owner END,
  lease_token = CASE WHEN v.column2 = 'leased' THEN lease_token END
FROM (VALUES ${rowsOf(rows, 8)}) AS v WHERE deliveries.id = v.column1`,
);

/** A subscription's failure streak after a turn's outcomes. Params: failing since (or NULL), id. */
export const SET_FAILING_SINCE = "UPDATE subscriptions SET failing_since = ? WHERE id = ?";

/** Leases the picked rows in one statement. Params: lease expiry, worker id, lease token, now, ids (JSON array). */
export const LEASE_MANY = `UPDATE deliveries SET state = 'leased', due_at = ?, lease_owner = ?, lease_token = ?, updated_at = ?
WHERE id IN (SELECT value FROM json_each(?))`;

/** The destinations' id range (`dst_…`, shared/target-scope.ts), written into the forward statements. */
const DESTINATIONS = scopeSql("s.id", "receiver");
/** Whether any destination exists, and whether any is not paused (the forward gate: an event wakes the workers). */
export const ANY_DESTINATION = `SELECT EXISTS (SELECT 1 FROM subscriptions s WHERE ${DESTINATIONS}),
  EXISTS (SELECT 1 FROM subscriptions s WHERE ${DESTINATIONS} AND s.paused = 0)`;

/** Whether destination `s` takes the event type of inbox row `i` (the processed trigger's rule, migration 10). */
export const TAKES_ROW_TYPE =
  "(s.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(s.event_types) WHERE value = i.event_type))";

/** The inbox's last seq: where a new destination's cursor starts, and whether a cursor is behind. */
export const LAST_INBOX_SEQ = "SELECT coalesce(max(seq), 0) FROM inbox_events";

/**
 * Whether an inbox row `i` is of the types `@types` (a destination's `event_types`, a JSON array, bound as a
 * parameter so that SQLite reads the array once per statement, not once per row; NULL: every type).
 */
const OF_TYPES = "(@types IS NULL OR i.event_type IN (SELECT value FROM json_each(@types)))";

/**
 * A destination that is behind: how many of its newest `@limit` deliveries are still pending (taken, not yet sent),
 * through `deliveries_by_subscription_idx` (its last rows only). Params: @id, @limit.
 */
export const PENDING_AMONG_NEWEST = `SELECT count(*) FROM (SELECT state FROM deliveries
INDEXED BY deliveries_by_subscription_idx WHERE subscription_id = @id ORDER BY id DESC LIMIT @limit)
WHERE state = 'pending'`;

/** Every type: the seq of the `@n`-th inbox event after `@cursor` (or the last one, if fewer follow). */
export const TAKE_WINDOW_END = `SELECT max(seq) FROM (SELECT seq FROM inbox_events WHERE seq > @cursor ORDER BY seq
LIMIT @n)`;

/**
 * Some types: the seq of the `@n`-th event of `@types` after `@cursor` among the next `@look` events, or the last of
 * those looked at if fewer are of its types (the cursor moves past what was looked at either way, so a destination
 * taking a rare type keeps up with a busy inbox, `@look` events per claim).
 */
export const TAKE_TYPED_WINDOW_END = `WITH looked AS MATERIALIZED (SELECT seq, event_type FROM inbox_events
  WHERE seq > @cursor ORDER BY seq LIMIT @look),
matched AS (SELECT seq FROM looked i WHERE ${OF_TYPES} ORDER BY seq LIMIT @n)
SELECT CASE WHEN (SELECT count(*) FROM matched) = @n THEN (SELECT max(seq) FROM matched)
  ELSE (SELECT max(seq) FROM looked) END`;

/**
 * The messages of the events of `@types` in seqs `@cursor` < seq <= `@to`: no body of their own (`inbox_seq` names
 * the event), one per event, kept when another destination took the event first.
 */
export const TAKE_MESSAGES = `INSERT OR IGNORE INTO messages (id, event_type, body, created_at, inbox_seq)
SELECT 'in_' || i.seq, i.event_type, X'', i.received_at, i.seq FROM inbox_events i
WHERE i.seq > @cursor AND i.seq <= @to AND ${OF_TYPES}
ORDER BY i.seq`;

/**
 * One pending forward to destination `@id` per event of `@types` in that range, in commit order (the delivery ids an
 * ordered destination goes by), created as received (lag counts from the event's arrival). An event that already has
 * a forward to it is passed over: one written at ingest by a process of an older version still running beside this
 * one (migration 10 is applied while others may run), so no event is sent twice without a crash.
 */
export const TAKE_DELIVERIES = `INSERT INTO deliveries (message_id, subscription_id, state, due_at, created_at, updated_at)
SELECT 'in_' || i.seq, @id, 'pending', i.received_at, i.received_at, i.received_at
FROM inbox_events i
WHERE i.seq > @cursor AND i.seq <= @to AND ${OF_TYPES}
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = 'in_' || i.seq AND d.subscription_id = @id)
ORDER BY i.seq`;

/**
 * A destination without a cursor, created by a process of an older version after migration 10: it starts after the
 * last event received before it was created (the ones after are taken; those that process wrote forwards for are
 * passed over by {@link TAKE_DELIVERIES}). Param: id. Returns the cursor.
 */
export const START_FORWARD_CURSOR = `UPDATE subscriptions SET forward_seq = coalesce((SELECT seq FROM inbox_events
  WHERE received_at < subscriptions.created_at ORDER BY seq DESC LIMIT 1), 0)
WHERE id = ? RETURNING forward_seq`;

/** The events after a destination's cursor of its types: how many, and when the first arrived. Params: @cursor, @types. */
export const UNTAKEN_OF = `SELECT count(*) AS n, min(i.received_at) AS oldest FROM inbox_events i
WHERE i.seq > @cursor AND ${OF_TYPES}`;

/** The inbox seqs of a destination's unfinished forwards, through the due index. Param: its id. */
export const UNFINISHED_FORWARD_SEQS = `SELECT m.inbox_seq FROM deliveries d INDEXED BY deliveries_due_idx
JOIN messages m ON m.id = d.message_id
WHERE d.state IN ('pending', 'leased') AND d.subscription_id = ? AND m.inbox_seq IS NOT NULL`;

/**
 * After a destination is deleted: its held events (`@held`, a JSON array of seqs) and those after its cursor
 * (`@cursor`, NULL for none) are processed at `@now` when some forward of theirs exists, every one is delivered, and
 * no other destination of their type has still to take them (the processed trigger's rule).
 */
export const PROCESS_RELEASED = `UPDATE inbox_events AS i SET processed_at = @now
WHERE i.processed_at IS NULL
  AND i.seq IN (SELECT value FROM json_each(@held)
    UNION ALL SELECT seq FROM inbox_events WHERE @cursor IS NOT NULL AND seq > @cursor AND processed_at IS NULL)
  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = 'in_' || i.seq)
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = 'in_' || i.seq AND d.state <> 'delivered')
  AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.forward_seq < i.seq AND ${TAKES_ROW_TYPE})`;

/** A destination's cursor moved past what it took. Params: seq, id. */
export const MOVE_FORWARD_CURSOR = "UPDATE subscriptions SET forward_seq = ? WHERE id = ?";
