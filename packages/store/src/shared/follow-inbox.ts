import type { InboxEvent, InboxStreamOptions } from "../api/inbox.js";
import type { Notifier } from "./notifier.js";

/** What a backend provides to follow its inbox. */
export interface InboxFollowSource {
  /** Emits the seqs of newly committed events (possibly out of seq order on PostgreSQL). */
  notifier: Notifier<number[]>;
  /** Events with `seq > after` or `seq` in `extra`, ascending, at most `limit`. */
  fetchAfter(after: number, extra: readonly number[], limit: number): Promise<InboxEvent[]>;
  maxSeq(): Promise<number>;
  /** Aborted when the store closes. */
  closed: AbortSignal;
}

const BATCH = 200;
const REMEMBERED = 4096;

/**
 * Follows the inbox in commit order. Wakes on the notifier, polls as a fallback. On PostgreSQL a
 * transaction can commit a lower seq after a higher one was read; its notification (seq ≤ last
 * seen) makes it fetched explicitly, and a window of recently yielded seqs prevents doubles.
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
  const late = new Set<number>();
  const recent = new Set<number>();
  // Until the start point is known nothing counts as late: what commits meanwhile is above it and
  // fetched by the first `seq > last` query; never re-yield what a resuming client already has.
  let last = Number.NEGATIVE_INFINITY;
  const off = source.notifier.subscribe((seqs) => {
    for (const seq of seqs) if (seq <= last && !recent.has(seq)) late.add(seq);
  });
  try {
    last = options.after ?? (await source.maxSeq());
    while (!signal.aborted) {
      const generation = source.notifier.generation;
      const extra = [...late];
      late.clear();
      const events = await source.fetchAfter(last, extra, BATCH);
      for (const event of events) {
        if (recent.has(event.seq)) continue;
        recent.add(event.seq);
        if (recent.size > REMEMBERED) recent.delete(recent.values().next().value as number);
        if (event.seq > last) last = event.seq;
        yield event;
        if (signal.aborted) return;
      }
      if (events.length >= BATCH || late.size > 0) continue;
      await source.notifier.wait({ signal, timeoutMs: pollMs, since: generation });
    }
  } finally {
    off();
  }
}
