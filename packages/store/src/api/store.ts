import type { Inbox } from "./inbox.js";
import type { Outbox } from "./outbox.js";
import type { Subscriptions } from "./subscriptions.js";

/**
 * One durable store: receiver inbox, sender subscriptions and outbox.
 *
 * @example
 * ```ts
 * const store = await openStore("./data/plant-store.db");
 * await store.ping(); // for /readyz
 * await store.close(); // flushes pending inbox writes
 * ```
 */
export interface Store {
  readonly backend: "sqlite" | "postgres";
  readonly inbox: Inbox;
  readonly subscriptions: Subscriptions;
  readonly outbox: Outbox;
  /**
   * Throws `StoreUnavailableError` when the database cannot serve queries — on SQLite also when it cannot take a
   * write: another process has held the write lock for `busyTimeoutMs`, or the file is read-only.
   */
  ping(): Promise<void>;
  /** Waits for pending inbox commits, ends streams and releases connections. Idempotent. */
  close(): Promise<void>;
}
