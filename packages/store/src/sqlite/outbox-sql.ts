/**
 * The SQLite outbox statements whose plans matter; the 1M-row test EXPLAINs these exact texts.
 * SQLite has one writer, so a claim is this SELECT plus an UPDATE per row in one IMMEDIATE
 * transaction — no other connection can take the same rows in between.
 */

/**
 * Due rows in due order through the partial index `deliveries_due_idx`, each with its message (primary-key
 * lookup), so a claim runs one SELECT for the batch instead of one per row. Subscriptions the worker cannot
 * serve now are left out. With each row its subscription's `enabled`: a disabled subscription's rows (a lease
 * that expired or was released after the disable) are failed by the claim, never leased.
 * Params: now, subscription ids to skip (JSON array), limit.
 */
export const CLAIM_DUE = `SELECT d.id, d.due_at, d.attempts, d.subscription_id, m.id AS message_id, m.event_type, m.body,
  m.created_at,
  s.enabled
FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN subscriptions s ON s.id = d.subscription_id
WHERE d.state IN ('pending', 'leased') AND d.due_at <= ?
  AND d.subscription_id NOT IN (SELECT value FROM json_each(?))
ORDER BY d.due_at, d.id LIMIT ?`;

/** A due row of a disabled subscription. Params: now, reason, now, now, delivery id. */
export const FAIL_DISABLED = `UPDATE deliveries SET state = 'failed', due_at = ?, lease_owner = NULL, lease_token = NULL,
  last_error = ?, finished_at = ?, updated_at = ? WHERE id = ?`;

/** Params: lease expiry, worker id, lease token, now, delivery id. */
export const LEASE_ONE = `UPDATE deliveries SET state = 'leased', due_at = ?, lease_owner = ?, lease_token = ?, updated_at = ?
WHERE id = ?`;

/** What a worker needs of a claimed delivery's subscription: read once per subscription per claim. Param: its id. */
export const CLAIMED_SUBSCRIPTION = "SELECT id, url, token, secrets, signing FROM subscriptions WHERE id = ?";

/** O(1) depth by state: counters kept by triggers (migration 2). */
export const STATE_COUNTS = "SELECT state, n FROM delivery_counts";

/** The longest-waiting claimable row. Param: now. */
export const OLDEST_DUE = `SELECT due_at FROM deliveries WHERE state IN ('pending', 'leased') AND due_at <= ?
ORDER BY due_at, id LIMIT 1`;
