import type { ClaimedDelivery } from "@plant-store/store";

/** What the worker holds of one target, and how much it may run at once. */
interface Held {
  running: number;
  waiting: number;
  cap: number;
}

/**
 * The worker's slots: how many deliveries are in flight, in all and per subscription, and the claimed deliveries
 * waiting for a slot of their subscription. Claimed deliveries start in claim (due) order as slots allow; one whose
 * subscription is at its cap waits, still leased to this worker, while later ones of other subscriptions start.
 * The worker holds up to twice its concurrency: a claim may fill the slots and as many deliveries again, which start
 * as slots free up (docs/decisions.md, "The worker claims a concurrency ahead").
 *
 * @example
 * ```ts
 * const pool = new SlotPool(64, 16);
 * pool.add(await store.outbox.claim(pool.room, { …, skipSubscriptions: pool.full() }));
 * for (const delivery of pool.take()) run(delivery).finally(() => pool.done(delivery));
 * ```
 */
export class SlotPool {
  readonly #concurrency: number;
  readonly #perSubscription: number;
  #inFlight = 0;
  /** In flight and waiting, per subscription: what the worker holds of each. */
  readonly #held = new Map<string, Held>();
  #waiting: ClaimedDelivery[] = [];

  constructor(concurrency: number, perSubscription: number) {
    this.#concurrency = concurrency;
    this.#perSubscription = perSubscription;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** How much a claim may take: twice the concurrency, less what runs and what waits. */
  get room(): number {
    return 2 * this.#concurrency - this.#inFlight - this.#waiting.length;
  }

  /** Deliveries the worker holds of `subscriptionId`, running or waiting. */
  held(subscriptionId: string): number {
    const held = this.#held.get(subscriptionId);
    return held ? held.running + held.waiting : 0;
  }

  /** Subscriptions the worker cannot take more of now: a claim skips them, so their backlog does not fill it. */
  full(): string[] {
    const full: string[] = [];
    for (const [id, held] of this.#held) if (held.running + held.waiting >= held.cap) full.push(id);
    return full;
  }

  /** Claimed deliveries join the queue, in claim order. */
  add(claimed: readonly ClaimedDelivery[]): void {
    for (const delivery of claimed) {
      this.#waiting.push(delivery);
      this.#count(delivery.subscription.id, this.capOf(delivery)).waiting++;
    }
  }

  /** The waiting deliveries that may start now, in order, each counted in flight from here on. */
  take(): ClaimedDelivery[] {
    const ready: ClaimedDelivery[] = [];
    if (this.#waiting.length === 0 || this.#inFlight >= this.#concurrency) return ready;
    const still: ClaimedDelivery[] = [];
    for (const delivery of this.#waiting) {
      const held = this.#count(delivery.subscription.id);
      if (this.#inFlight < this.#concurrency && held.running < held.cap) {
        held.running++;
        held.waiting--;
        this.#inFlight++;
        ready.push(delivery);
      } else still.push(delivery);
    }
    this.#waiting = still;
    return ready;
  }

  /** A delivery taken with {@link take} finished: its slot is free. */
  done(delivery: ClaimedDelivery): void {
    const id = delivery.subscription.id;
    const held = this.#count(id);
    held.running--;
    this.#inFlight--;
    if (held.running === 0 && held.waiting === 0) this.#held.delete(id);
  }

  /** Removes and returns the waiting deliveries whose lease ends before `deadline` (or all of them). */
  drop(deadline = Number.POSITIVE_INFINITY): ClaimedDelivery[] {
    const dropped = this.#waiting.filter((d) => d.leaseExpiresAt.getTime() < deadline);
    if (dropped.length === 0) return dropped;
    this.#waiting = this.#waiting.filter((d) => d.leaseExpiresAt.getTime() >= deadline);
    for (const delivery of dropped) {
      const id = delivery.subscription.id;
      const held = this.#count(id);
      held.waiting--;
      if (held.running === 0 && held.waiting === 0) this.#held.delete(id);
    }
    return dropped;
  }

  /** How many of its target's deliveries may run at once: the target's own cap, or the worker's per-target one. */
  capOf(delivery: ClaimedDelivery): number {
    return Math.min(delivery.subscription.maxInFlight ?? this.#perSubscription, this.#perSubscription);
  }

  /** The cap of a target the worker holds deliveries of (the worker's per-target cap when it holds none). */
  capHeld(subscriptionId: string): number {
    return this.#held.get(subscriptionId)?.cap ?? this.#perSubscription;
  }

  #count(subscriptionId: string, cap = this.#perSubscription): Held {
    let held = this.#held.get(subscriptionId);
    if (!held) {
      held = { running: 0, waiting: 0, cap };
      this.#held.set(subscriptionId, held);
    }
    return held;
  }
}
