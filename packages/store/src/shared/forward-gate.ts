/** How long a process trusts its knowledge that no destination exists before it looks again. */
export const FORWARD_GATE_TTL_MS = 1000;

/**
 * Whether the inbox's write path runs its forward statements: only while destinations exist. This process's own
 * changes open or close the gate at once; another process's (a second receiver on PostgreSQL) are seen within
 * {@link FORWARD_GATE_TTL_MS}. The gate only saves the statements' cost when there is nothing to forward: which
 * destinations take an event is read inside the write's own transaction, so a forward is never created for a
 * destination deleted meanwhile and never missed for one this process knows of. It also says whether the write
 * wakes the workers ({@link ForwardGate.wakes}): a forward to a destination resumed by another process is claimed
 * at the workers' next poll (within a second), as one created by another process is forwarded to.
 *
 * @example
 * ```ts
 * const gate = new ForwardGate(() => Date.now());
 * if (gate.stale()) gate.set(anyDestination(), anyNotPaused());
 * if (gate.open) insertForwards();
 * ```
 */
export class ForwardGate {
  open = false;
  /**
   * Whether a new forward may be claimed now, so the write wakes the outbox's workers: some destination is not
   * paused. A forward only to paused destinations wakes nobody (a claim would skip it); resume wakes the workers.
   */
  wakes = false;
  #checkedAt = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** True when the gate's knowledge is older than its TTL (or was invalidated). */
  stale(): boolean {
    return this.#now() - this.#checkedAt >= FORWARD_GATE_TTL_MS;
  }

  /** Records what was read: whether any destination exists, and whether any of them is not paused. */
  set(open: boolean, wakes = open): void {
    this.open = open;
    this.wakes = open && wakes;
    this.#checkedAt = this.#now();
  }

  /** After a change in this process: look again before the next write. */
  invalidate(): void {
    this.#checkedAt = Number.NEGATIVE_INFINITY;
  }
}

/** The id of the outbox message that forwards inbox event `seq`. */
export const forwardMessageId = (seq: number | string): string => `in_${seq}`;
