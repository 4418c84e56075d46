/**
 * A bounded map of values derived from a text (a decoded secret, a URL's verdict) for hot paths that see the same
 * few texts again and again: at most `max` entries, the least recently used dropped first. Internal to core.
 *
 * @example
 * ```ts
 * const parsed = createKept<URL>(1024);
 * const url = parsed.get(text) ?? parsed.set(text, new URL(text));
 * ```
 */
export interface Kept<V> {
  /** The value kept for `key`, now the most recently used; undefined when there is none. */
  get(key: string): V | undefined;
  /** Keeps `value` for `key` (dropping the least recently used entry when full) and returns it. */
  set(key: string, value: V): V;
  readonly size: number;
}

export function createKept<V>(max: number): Kept<V> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const entries = new Map<string, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      if (!entries.has(key) && entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(key, value);
      return value;
    },
    get size() {
      return entries.size;
    },
  };
}
