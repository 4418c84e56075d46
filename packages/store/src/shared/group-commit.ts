interface Waiter<In, Out> {
  item: In;
  resolve: (value: Out) => void;
  reject: (error: unknown) => void;
}

/**
 * Batches concurrent writes: items submitted in the same event-loop turn (and while a previous
 * batch is committing) are handed to `write` together, so many callers share one transaction and
 * one fsync. Each promise settles only with the outcome of the commit that holds its item.
 *
 * @example
 * ```ts
 * const gc = new GroupCommitter((rows: Row[]) => db.transaction(() => rows.map(insert))(), { maxBatch: 500 });
 * await Promise.all([gc.submit(a), gc.submit(b)]); // one transaction
 * ```
 */
export class GroupCommitter<In, Out> {
  readonly #write: (items: In[]) => Out[] | Promise<Out[]>;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  #queue: Waiter<In, Out>[] = [];
  #scheduled = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  constructor(
    write: (items: In[]) => Out[] | Promise<Out[]>,
    options: { maxBatch: number; maxInFlight?: number },
  ) {
    this.#write = write;
    this.#maxBatch = options.maxBatch;
    this.#maxInFlight = options.maxInFlight ?? 1;
  }

  submit(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once everything submitted so far has settled. */
  drain(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0 && !this.#scheduled) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#scheduled = true;
    // setImmediate (not a microtask) runs after the I/O poll phase, so every request whose bytes
    // arrived in this loop iteration joins the batch.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, this.#maxBatch);
    if (batch.length === 0) return this.#settleIdle();
    this.#inFlight++;
    this.#schedule(); // leftovers beyond maxBatch may start their own flush when maxInFlight > 1
    try {
      // Pushed, not mapped: the writer takes this array, and `push` keeps its V8 array map stable.
      const items: In[] = [];
      for (const w of batch) items.push(w.item);
      const results = await this.#write(items);
      for (const [i, w] of batch.entries()) w.resolve(results[i] as Out);
    } catch (error) {
      for (const w of batch) w.reject(error);
    } finally {
      this.#inFlight--;
    }
    this.#schedule();
    this.#settleIdle();
  }

  #settleIdle(): void {
    if (this.#queue.length > 0 || this.#inFlight > 0 || this.#scheduled) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
