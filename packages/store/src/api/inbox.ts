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
  /**
   * Hands every event recorded from now on (of `types`) to `handler` in this process, on the outbox's engine: the
   * consumer is a receiver target (`consumer:<name>`), so events fan out to it in the inbox's transaction like to a
   * destination; its deliveries are claimed with a lease, `delivered` when the handler returns, retried on the
   * schedule when it throws, `failed` when exhausted. Processes consuming the same name share the work. Resolves
   * once the consumer is registered.
   */
  consume(options: ConsumeOptions): Promise<Consumer>;
}

/** An event as `inbox.consume` hands it to its handler. */
export interface ConsumedEvent {
  /** The provider's `webhook-id`. */
  id: string;
  type: string;
  /** The exact bytes received. */
  body: Uint8Array;
  receivedAt: Date;
  /** 1 on the first call for this event, then 2, 3… on retries. */
  attempt: number;
  /** The body parsed as JSON (throws on a body that is not JSON). */
  json(): unknown;
}

/** What `inbox.consume` runs. */
export interface ConsumeOptions {
  handler: (event: ConsumedEvent) => unknown;
  /** Which consumer: processes with the same name share its events. Default `default`. */
  name?: string | undefined;
  /** Event types handed over; absent or `null`: every type. */
  types?: readonly string[] | null | undefined;
  /** Handlers running at once in this process. Default 1. */
  concurrency?: number | undefined;
  /** Stops claiming; `Consumer.stopped` resolves once the handlers in flight have finished. */
  signal?: AbortSignal | undefined;
  /** How long a claimed event is this process's before another may take it (longer than a handler runs). Default 30 s. */
  leaseMs?: number | undefined;
  /** Retry delays (core's `NextAttemptOptions.schedule`). Default core's standard schedule. */
  schedule?: readonly number[] | undefined;
  /** How long an idle consumer waits before claiming again (ms). Default 250. */
  pollMs?: number | undefined;
  /** Called with an error the loop carries on after (an outcome that could not be recorded). */
  onError?: ((error: unknown) => void) | undefined;
}

/** A running consumer. */
export interface Consumer {
  /** Its target id (`dst_…`): `outbox.listDeliveries({ subscriptionId: id, state: "failed" })` lists its failures. */
  id: string;
  name: string;
  /** Resolves when `signal` aborted and the handlers in flight finished; rejects if a claim fails. */
  stopped: Promise<void>;
}
