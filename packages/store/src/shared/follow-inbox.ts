import type { InboxEvent, InboxStreamOptions } from "../api/inbox.js";
import type { Notifier } from "./notifier.js";

/** What a backend provides to follow its inbox. */
export interface InboxFollowSource {
  /**
   * Emits the seqs of newly committed events (possibly out of seq order on PostgreSQL). An empty
   * emit means notifications may have been lost (the PostgreSQL LISTEN connection reconnected).
   */
  notifier: Notifier<number[]>;
  /** Events with `seq > after` or `seq` in `extra`, ascending, at most `limit`. */
  fetchAfter(after: number, extra: readonly number[], limit: number): Promise<InboxEvent[]>;
  maxSeq(): Promise<number>;
  /** Aborted when the store closes. */
  closed: AbortSignal;
  /**
   * `true` when a lower seq can commit after a higher one (PostgreSQL). Only then are lost
   * notifications swept for; SQLite commits in seq order and leaves it unset.
   */
  commitsOutOfOrder?: boolean;
}

const BATCH = 200;
const REMEMBERED = 4096;
/** At most this many never-yielded seqs (the newest of the window) are looked up by one sweep. */
const SWEEP = 1024;

/** Where one follower stands: what it yielded recently, what it was told of, and the highest seq it fetched. */
interface FollowState {
  /** Notified, not yet yielded; after each fetch only seqs ≤ `last` (higher ones come with `seq > last`). */
  pending: Set<number>;
  /** Recently yielded seqs, oldest first. */
  recent: Set<number>;
  /**
   * The highest seq evicted from `recent`: at or below it a seq may have been yielded and forgotten, so the sweep
   * stays above it (a yielded seq above it is still in `recent`).
   */
  floor: number;
  fetching: boolean;
  /** Look for notifications that may have been lost, at the next fetch. */
  sweep: boolean;
  /**
   * The highest seq fetched. Until the start point is known nothing is remembered: what commits meanwhile is above
   * it and fetched by the first `seq > last` query; never re-yield what a resuming client already has.
   */
  last: number;
  /** Where the stream started: the sweep never looks at or below it. */
  start: number;
}

/**
 * Follows the inbox in commit order. Wakes on the notifier, polls as a fallback.
 *
 * On PostgreSQL seqs are taken at insert and committed out of order, so a fetch can miss a lower
 * seq that commits later. A notified seq is committed, so it is visible to every fetch that starts
 * after the notification; one that arrives while a fetch is in flight (or is ≤ the last seq
 * fetched) is remembered until it is yielded, and fetched explicitly while it is ≤ that seq. A seq
 * asked for and not found was deleted and is dropped. Notifications lost while LISTEN reconnected
 * are caught by a sweep after the reconnect and at each idle poll: the never-yielded seqs between
 * the remembered yielded ones and the last are fetched by id (most are gaps that never fill:
 * `ON CONFLICT DO NOTHING` consumes a seq). The window of recently yielded seqs prevents doubles: a sweep
 * never looks at or below the highest seq evicted from it.
 *
 * @example
 * ```ts
 * for await (const event of followInbox(source, { signal })) send(event);
 * ```
 */
export async function* followInbox(
  source: InboxFollowSource,
  options: InboxStreamOptions = {},
): AsyncGenerator<InboxEvent> {
  const signal = options.signal ? AbortSignal.any([options.signal, source.closed]) : source.closed;
  const pollMs = options.pollIntervalMs ?? 1000;
  const state: FollowState = {
    pending: new Set(),
    recent: new Set(),
    floor: Number.NEGATIVE_INFINITY,
    fetching: false,
    sweep: false,
    last: Number.NEGATIVE_INFINITY,
    start: Number.NEGATIVE_INFINITY,
  };
  const off = source.notifier.subscribe((seqs) => noteCommitted(state, seqs));
  try {
    state.last = options.after ?? (await source.maxSeq());
    state.start = state.last;
    while (!signal.aborted) {
      const generation = source.notifier.generation;
      const { events, above } = await fetchRound(source, state);
      for (const event of events) {
        if (!firstSight(state, event.seq)) continue;
        yield event;
        if (signal.aborted) return;
      }
      if (above >= BATCH || state.pending.size > 0) continue;
      if (!(await source.notifier.wait({ signal, timeoutMs: pollMs, since: generation }))) state.sweep = true;
    }
  } catch (error) {
    // A query refused because the store closed (or the caller stopped) meanwhile ends the stream, as promised.
    if (signal.aborted) return;
    throw error;
  } finally {
    off();
  }
}

/** A notification: remembers the seqs the next `seq > last` fetch would not see; an empty one asks for a sweep. */
function noteCommitted(state: FollowState, seqs: readonly number[]): void {
  if (seqs.length === 0) state.sweep = true;
  // A seq above `last` notified while no fetch is in flight is seen by the next `seq > last`.
  for (const seq of seqs) {
    if ((state.fetching || seq <= state.last) && !state.recent.has(seq)) state.pending.add(seq);
  }
}

/**
 * Fetches the next events: those above `last`, the pending ones, and on a sweep the never-yielded ones of the
 * window. Moves `last` on and forgets pending seqs that are gone. `above` counts the events above the old `last`.
 */
async function fetchRound(
  source: InboxFollowSource,
  state: FollowState,
): Promise<{ events: InboxEvent[]; above: number }> {
  const asked = [...state.pending];
  const extra = state.sweep && source.commitsOutOfOrder ? [...asked, ...unyielded(state)] : asked;
  state.sweep = false;
  state.fetching = true;
  let events: InboxEvent[];
  try {
    // Everything in `extra` is ≤ last and sorts first; BATCH rows above `last` still fit.
    events = await source.fetchAfter(state.last, extra, BATCH + extra.length);
  } finally {
    state.fetching = false;
  }
  const before = state.last;
  let above = 0;
  const found = new Set<number>();
  for (const event of events) {
    found.add(event.seq);
    if (event.seq > before) above++;
    if (event.seq > state.last) state.last = event.seq;
  }
  for (const seq of asked) if (!found.has(seq)) state.pending.delete(seq);
  for (const seq of state.pending) if (seq > state.last) state.pending.delete(seq);
  return { events, above };
}

/** The newest seqs of the recent window that were never yielded nor are pending. */
function unyielded(state: FollowState): number[] {
  const low = Math.max(state.start, state.floor);
  const ids: number[] = [];
  for (let seq = state.last; seq > low && ids.length < SWEEP; seq--) {
    if (!state.recent.has(seq) && !state.pending.has(seq)) ids.push(seq);
  }
  return ids;
}

/** Whether `seq` is to be yielded (not yielded recently); remembers it, evicting the oldest beyond the window. */
function firstSight(state: FollowState, seq: number): boolean {
  state.pending.delete(seq);
  if (state.recent.has(seq)) return false;
  state.recent.add(seq);
  if (state.recent.size > REMEMBERED) {
    const evicted = state.recent.values().next().value as number;
    state.recent.delete(evicted);
    if (evicted > state.floor) state.floor = evicted;
  }
  return true;
}
