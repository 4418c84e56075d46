/**
 * In-process fan-out of "something was committed" signals (inbox seqs, outbox work). The
 * PostgreSQL backend feeds it from LISTEN; SQLite from its own commits.
 *
 * @example
 * ```ts
 * const n = new Notifier<number[]>();
 * const off = n.subscribe((seqs) => console.log(seqs));
 * n.emit([1, 2]);
 * off();
 * ```
 */
export class Notifier<T> {
  readonly #listeners = new Set<(value: T) => void>();
  /** Bumped on every emit; lets a waiter tell whether it missed one. */
  generation = 0;

  subscribe(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(value: T): void {
    this.generation++;
    for (const listener of this.#listeners) listener(value);
  }

  /**
   * Resolves `true` on the next emit (or at once if one happened after generation `since`),
   * `false` after `timeoutMs` or when `signal` aborts.
   */
  wait(options: { signal?: AbortSignal | undefined; timeoutMs: number; since?: number }): Promise<boolean> {
    const { signal, timeoutMs, since } = options;
    if (since !== undefined && this.generation > since) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const onAbort = () => done(false);
      const off = this.subscribe(() => done(true));
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
