import { BATCH_FRAME_BYTES as BODY_FRAME_BYTES, type LineEvent } from "./event-lines.js";

/**
 * Splits events, in order, into batches of at most `maxEvents` events whose `POST /events/batch` body stays within
 * `maxBytes` (`MAX_BATCH_EVENTS` and `MAX_BATCH_BODY_BYTES` for the sender's).
 *
 * @example
 * ```ts
 * batches(events, 1000, 4 * 1024 * 1024).length; // 3 for 2,500 small events
 * ```
 */
export function batches(events: readonly LineEvent[], maxEvents: number, maxBytes: number): LineEvent[][] {
  const out: LineEvent[][] = [];
  let current: LineEvent[] = [];
  let bytes = BODY_FRAME_BYTES;
  for (const event of events) {
    // A comma between events.
    const more = event.bytes + (current.length > 0 ? 1 : 0);
    if (current.length > 0 && (current.length === maxEvents || bytes + more > maxBytes)) {
      out.push(current);
      current = [];
      bytes = BODY_FRAME_BYTES;
    }
    bytes += event.bytes + (current.length > 0 ? 1 : 0);
    current.push(event);
  }
  if (current.length > 0) out.push(current);
  return out;
}
