import type { Applications } from "./applications.js";
import type { Destinations } from "./destinations.js";
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
  /** The sender's applications (one per customer) and reads scoped to one of them. */
  readonly applications: Applications;
  readonly outbox: Outbox;
  /** The receiver's destinations: targets of the same outbox, forwarded to in the inbox's transaction. */
  readonly destinations: Destinations;
  /**
   * Throws `StoreUnavailableError` when the database cannot serve queries — on SQLite also when it cannot take a
   * write: another process has held the write lock for `busyTimeoutMs`, or the file is read-only.
   */
  ping(): Promise<void>;
  /**
   * Deletes one bounded batch of what is older than `before`: inbox events received before it, and messages
   * published before it whose deliveries are all finished (delivered or failed), with those deliveries and their
   * attempts. A message still pending or leased anywhere is kept. Call it again while it deleted a full batch; each
   * batch is one short transaction, so webhooks and deliveries are not held up behind it.
   */
  purge(options: PurgeOptions): Promise<PurgeResult>;
  /** Waits for pending inbox commits, ends streams and releases connections. Idempotent. */
  close(): Promise<void>;
}

/** Options of `Store.purge`. */
export interface PurgeOptions {
  /** Everything older than this goes (epoch ms or a Date). */
  before: Date | number;
  /** Rows of each kind per batch. Default 1000. */
  batchSize?: number | undefined;
}

/** What one `Store.purge` batch deleted. */
export interface PurgeResult {
  inboxEvents: number;
  messages: number;
  /** True when a kind filled its batch: call again. */
  more: boolean;
}
