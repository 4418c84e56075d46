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
  /** Notified, not yet yielded; after each fetch only seqs ≤ `last` (higher ones come with `seq > last`). */
  const pending = new Set<number>();
  /** Recently yielded seqs, oldest first. */
  const recent = new Set<number>();
  /**
   * The highest seq evicted from `recent`: at or below it a seq may have been yielded and forgotten, so the sweep
   * stays above it (a yielded seq above it is still in `recent`).
   */
  let floor = Number.NEGATIVE_INFINITY;
  let fetching = false;
  let sweep = false;
  // Until the start point is known nothing is remembered: what commits meanwhile is above it and
  // fetched by the first `seq > last` query; never re-yield what a resuming client already has.
  let last = Number.NEGATIVE_INFINITY;
  const off = source.notifier.subscribe((seqs) => {
    if (seqs.length === 0) sweep = true;
    // A seq above `last` notified while no fetch is in flight is seen by the next `seq > last`.
    for (const seq of seqs) if ((fetching || seq <= last) && !recent.has(seq)) pending.add(seq);
  });
  try {
    last = options.after ?? (await source.maxSeq());
    const start = last;
    /** The newest seqs of the recent window that were never yielded nor are pending. */
    const unyielded = (): number[] => {
      const low = Math.max(start, floor);
      const ids: number[] = [];
      for (let seq = last; seq > low && ids.length < SWEEP; seq--)
        if (!recent.has(seq) && !pending.has(seq)) ids.push(seq);
      return ids;
    };
    while (!signal.aborted) {
      const generation = source.notifier.generation;
      const asked = [...pending];
      const extra = sweep && source.commitsOutOfOrder ? [...asked, ...unyielded()] : asked;
      sweep = false;
      fetching = true;
      let events: InboxEvent[];
      try {
        // Everything in `extra` is ≤ last and sorts first; BATCH rows above `last` still fit.
        events = await source.fetchAfter(last, extra, BATCH + extra.length);
      } finally {
        fetching = false;
      }
      const before = last;
      let above = 0;
      const found = new Set<number>();
      for (const event of events) {
        found.add(event.seq);
        if (event.seq > before) above++;
        if (event.seq > last) last = event.seq;
      }
      for (const seq of asked) if (!found.has(seq)) pending.delete(seq);
      for (const seq of pending) if (seq > last) pending.delete(seq);
      for (const event of events) {
        pending.delete(event.seq);
        if (recent.has(event.seq)) continue;
        recent.add(event.seq);
        if (recent.size > REMEMBERED) {
          const evicted = recent.values().next().value as number;
          recent.delete(evicted);
          if (evicted > floor) floor = evicted;
        }
        yield event;
        if (signal.aborted) return;
      }
      if (above >= BATCH || pending.size > 0) continue;
      if (!(await source.notifier.wait({ signal, timeoutMs: pollMs, since: generation }))) sweep = true;
    }
  } catch (error) {
    // A query refused because the store closed (or the caller stopped) meanwhile ends the stream, as promised.
    if (signal.aborted) return;
    throw error;
  } finally {
    off();
  }
}
