/**
 * Headers as the receiver got them: a Fetch `Headers`, Node's `IncomingHttpHeaders`, or pairs.
 * The inbox keeps only an allow-list (see `KEPT_HEADERS`), never credentials.
 */
export type HeaderInput =
  | { forEach(callback: (value: string, name: string) => void): void }
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | Iterable<readonly [string, string]>;

/** What the receiver hands to `inbox.record()` after verifying a request. */
export interface InboxRecordInput {
  /** The `webhook-id` header: the deduplication key. */
  webhookId: string;
  /**
   * The event type: the catalog entry's `type` (its operationId, e.g. `newPlant`) the receiver validated the
   * body against. Default `DEFAULT_EVENT_TYPE` (New Plant). 1 to 100 printable characters.
   */
  eventType?: string | undefined;
  /** The exact request body bytes (a string is stored as its UTF-8 bytes). */
  body: Uint8Array | string;
  headers?: HeaderInput | undefined;
  /** Defaults to the store's clock. */
  receivedAt?: Date | number | undefined;
}

/** One received event as stored. */
export interface InboxEvent {
  /** Commit-ordered sequence number; use it as the SSE event id to resume a stream. */
  seq: number;
  webhookId: string;
  /** The event type (e.g. `newPlant`); events recorded before event types existed are `newPlant`. */
  eventType: string;
  /** The exact bytes received. */
  body: Uint8Array;
  /** Kept headers, lower-case names. */
  headers: Readonly<Record<string, string>>;
  receivedAt: Date;
  processedAt: Date | null;
}

/** `duplicate: true` when an event with this webhook id was already recorded (first write wins). */
export type InboxRecordResult =
  | { duplicate: false; event: InboxEvent }
  | { duplicate: true; webhookId: string };

/** A page of results, newest first; pass `nextCursor` back to get the next page. */
export interface Page<T> {
  items: T[];
  /** `null` on the last page. */
  nextCursor: string | null;
}

export interface InboxListOptions {
  /** 1 to 1000, default 50. */
  limit?: number | undefined;
  cursor?: string | null | undefined;
  /** Only processed (`true`) or unprocessed (`false`) events. */
  processed?: boolean | undefined;
  /** Only events of this type (e.g. `newPlant`). */
  type?: string | undefined;
  /**
   * Bound the page by the bytes of its bodies too: it ends before the event that would take it past this (it holds
   * at least one), and `nextCursor` goes on from there.
   */
  maxBytes?: number | undefined;
}

export interface InboxStreamOptions {
  /** Start after this `seq` (e.g. SSE `Last-Event-ID`); default: only events committed from now on. */
  after?: number | undefined;
  /** Ends the iteration. */
  signal?: AbortSignal | undefined;
  /** Fallback poll for writers in other processes; default 1000 ms. */
  pollIntervalMs?: number | undefined;
}

/**
 * The receiver's durable, deduplicating record of events.
 *
 * @example
 * ```ts
 * const r = await store.inbox.record({ webhookId, body: rawBytes, headers: req.headers });
 * if (r.duplicate) log.info("already had it"); // still answer 200
 * ```
 */
export interface Inbox {
  /** Resolves only after the row is durably committed; rejects if that commit fails. */
  record(input: InboxRecordInput): Promise<InboxRecordResult>;
  get(webhookId: string): Promise<InboxEvent | null>;
  /** Newest first, cursor-paginated. */
  list(options?: InboxListOptions): Promise<Page<InboxEvent>>;
  /** Yields events in commit order as they are committed, until `signal` aborts or the store closes. */
  stream(options?: InboxStreamOptions): AsyncIterable<InboxEvent>;
  /** `true` if the event exists and was not processed before. */
  markProcessed(webhookId: string, at?: Date | number): Promise<boolean>;
  count(options?: { processed?: boolean | undefined }): Promise<number>;
}
