import type { DeliveryOutcome } from "@plant-store/core";
import type { Catalog } from "@plant-store/spec";
import type { Page } from "./inbox.js";
import type { SigningScheme } from "./subscriptions.js";

/**
 * Anything with a pg-style `query(text, values)`; pass a `pg.PoolClient` inside your own
 * `BEGIN … COMMIT` as `publish(..., { tx })`.
 */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface PublishOptions {
  /**
   * Same key → same message returned (`duplicate: true`), no second fan-out. Keys of a publish to an
   * `application` are that application's own: another application (or a publish to all) may use the same key.
   */
  idempotencyKey?: string | undefined;
  /**
   * Publish to one application only (its id `app_…` or its uid): only its subscriptions that receive the type get
   * a delivery. Omitted: every application's do. Throws `not_found` for an unknown application.
   */
  application?: string | undefined;
  /** PostgreSQL only: run inside the caller's transaction, so the event exists iff the caller commits. */
  tx?: SqlClient | undefined;
  /** `lossless` accepts ids beyond 2^53 (bigint); default `safe`, or `lossless` for a bigint id. */
  mode?: "safe" | "lossless" | undefined;
  /**
   * The event type: a `type` of `catalog` (the webhook's operationId). Its schema validates the event, it is
   * stored with the message, sent as the `webhook-event-type` header, and only subscriptions that receive this
   * type get a delivery. Default `DEFAULT_EVENT_TYPE` (New Plant).
   */
  eventType?: string | undefined;
  /** The webhooks `eventType` is looked up in; default `@plant-store/spec`'s `catalog` (the committed contract). */
  catalog?: Catalog | undefined;
  /**
   * The trace the publish belongs to, as OpenTelemetry's `propagation.inject` writes it into a plain object
   * (W3C `traceparent`, `tracestate`): stored with the message and handed back with every claim of its
   * deliveries, so each attempt continues the trace. Omitted or empty: nothing is stored.
   */
  traceContext?: TraceCarrier | undefined;
}

/**
 * A trace context as text fields (`{ traceparent, tracestate }`): what a propagator injects and extracts. At most
 * 16 fields, names 1 to 64 characters, the whole at most 4 KiB as JSON.
 */
export type TraceCarrier = Readonly<Record<string, string>>;

export interface PublishResult {
  /** `msg_…`, sortable; sent as `webhook-id` on every attempt. */
  messageId: string;
  duplicate: boolean;
  /** Deliveries of the message: created by this call, or by the original call for a duplicate. */
  deliveries: number;
  createdAt: Date;
}

/** One event of `publishMany`: the event and what `publish` would take beside it, per event. */
export interface BatchEvent {
  /** A New Plant (or `eventType`'s) object, or its JSON text or UTF-8 bytes, as `publish` takes it. */
  event: unknown;
  /** As `PublishOptions.eventType`; default `DEFAULT_EVENT_TYPE`. */
  eventType?: string | undefined;
  /** As `PublishOptions.idempotencyKey`: a stored key (or one used earlier in the batch) answers `duplicate: true`. */
  idempotencyKey?: string | undefined;
  /** As `PublishOptions.traceContext`. */
  traceContext?: TraceCarrier | undefined;
}

/** What `publishMany` takes for the whole batch. */
export interface PublishManyOptions {
  /** PostgreSQL only: run inside the caller's transaction (under a savepoint), as `publish({ tx })`. */
  tx?: SqlClient | undefined;
  /** As `PublishOptions.mode`, for every event. */
  mode?: "safe" | "lossless" | undefined;
  /** As `PublishOptions.catalog`, for every event. */
  catalog?: Catalog | undefined;
}

export interface OutboxMessage {
  id: string;
  /** The event type it was published as (e.g. `newPlant`). */
  eventType: string;
  /** The exact JSON bytes that are sent. */
  body: Uint8Array;
  idempotencyKey: string | null;
  createdAt: Date;
  /** The trace context it was published with (`publish({ traceContext })`), `null` when none. */
  traceContext: TraceCarrier | null;
}

/** A delivery's state; the list is `DELIVERY_STATES` in `@plant-store/core`. */
export type { DeliveryState } from "@plant-store/core";

import type { DeliveryState } from "@plant-store/core";

export interface Delivery {
  id: number;
  messageId: string;
  subscriptionId: string;
  state: DeliveryState;
  /** When it is next claimable: the retry time, or the lease expiry while leased. */
  dueAt: Date;
  /** Attempts made in the current round (reset by resend/recover). */
  attempts: number;
  leaseOwner: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

/** Identifies one lease; a `ClaimedDelivery` is one. */
export interface LeaseRef {
  id: number;
  leaseToken: string;
}

/** A claimed delivery with everything needed to send it. */
export interface ClaimedDelivery extends LeaseRef {
  /** 1-based number of the attempt about to be made (feed it to the retry policy). */
  attempt: number;
  leaseExpiresAt: Date;
  /** When it became due: claims are handed out in this order. */
  dueAt: Date;
  /**
   * `eventType` is sent as the `webhook-event-type` header; `traceContext` is the publish's (`null` when it was
   * not traced).
   */
  message: {
    id: string;
    eventType: string;
    body: Uint8Array;
    createdAt: Date;
    traceContext: TraceCarrier | null;
  };
  /**
   * Decrypted; `secrets` holds only those not expired, and only when the subscription's `signing` uses them (empty
   * for `asymmetric`).
   */
  subscription: ClaimedTarget;
  /**
   * Not before this instant: the send time a rate-limited target's claim handed out (the worker waits until then);
   * `null` = at once.
   */
  notBefore: Date | null;
}

/**
 * A claimed delivery's target (a subscription or a destination) as the worker needs it. `message.id` is what is
 * sent as `webhook-id`: a forward carries its provider's original id.
 */
export interface ClaimedTarget {
  id: string;
  url: string;
  /** Sent as `Authorization: Bearer`; `null` for a destination (its own credentials travel in `headers`). */
  token: string | null;
  secrets: string[];
  signing: SigningScheme;
  /** Added to every attempt (endpoint option); empty when none. */
  headers: Readonly<Record<string, string>> | null;
  /** The attempt's budget; `null` = the worker's default. */
  timeoutMs: number | null;
  /** Most attempts in flight at once; `null` = the worker's default. Ordered targets: 1. */
  maxInFlight: number | null;
  /** FIFO in commit order: later deliveries wait while the head retries (a destination's option; never a subscription's). */
  ordered: boolean;
}

/**
 * Whose work a claim takes: the sender's subscriptions (`sub_…`) or the receiver's destinations (`dst_…`). A sender
 * and a receiver sharing one database never claim each other's deliveries.
 */
export type TargetScope = "sender" | "receiver";

export interface ClaimOptions {
  /** How long the worker may hold the deliveries before another worker may reclaim them. */
  leaseMs: number;
  /** Default `sender`. */
  scope?: TargetScope | undefined;
  workerId: string;
  /**
   * Subscriptions whose deliveries are not claimed this time: those the worker cannot start now (at their
   * concurrency cap), so a slow subscriber's backlog does not fill the claim and starve the others.
   */
  skipSubscriptions?: readonly string[] | undefined;
  /**
   * At most this many deliveries per subscription in one claim. The rows are looked for among the first
   * `limit + maxPerSubscription` due ones (so one subscription's long backlog costs a bounded scan); the claim may
   * then return fewer than `limit` while more is due. Default: no cap.
   */
  maxPerSubscription?: number | undefined;
  /**
   * Scope `receiver` only: claim only this target's deliveries — an in-process consumer's (`inbox.consume`). Without
   * it, a receiver's claim never takes a consumer's deliveries (they are not HTTP).
   */
  target?: string | undefined;
}

/** One HTTP attempt, as logged. */
export interface AttemptInput {
  status?: number | null | undefined;
  latencyMs: number;
  /** Truncated to 4 KiB of UTF-8. */
  responseBody?: string | Uint8Array | null | undefined;
  error?: string | null | undefined;
  at?: Date | number | undefined;
}

/**
 * An attempt's outcome as the outbox records it: core's `DeliveryOutcome` (what `deliver` returns, settled by
 * `settleOutcome`), of which the outbox reads the kind, `retryAt` and the attempt's fields.
 *
 * @example
 * ```ts
 * const outcome: RecordedOutcome = { kind: "retry", status: 503, latencyMs: 12, retryAt: Date.now() + 5_000 };
 * ```
 */
export type RecordedOutcome = Pick<DeliveryOutcome, "kind" | "retryAt"> & AttemptInput;

export interface DeliveryAttempt {
  id: number;
  deliveryId: number;
  attempt: number;
  attemptedAt: Date;
  status: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
  workerId: string | null;
}

export interface OutboxStats {
  pending: number;
  leased: number;
  delivered: number;
  failed: number;
  /** Due time of the longest-waiting claimable delivery (expired leases included), `null` if none. */
  oldestDueAt: Date | null;
  /** `now - oldestDueAt`, 0 if nothing is due. */
  oldestDueAgeMs: number;
}

export interface ListDeliveriesOptions {
  messageId?: string | undefined;
  subscriptionId?: string | undefined;
  state?: DeliveryState | undefined;
  limit?: number | undefined;
  cursor?: string | null | undefined;
}

/**
 * The sender's durable queue: messages fanned out to one delivery per enabled subscription,
 * claimed with leases.
 *
 * @example
 * ```ts
 * const { messageId } = await store.outbox.publish({ id: 1, name: "Fern" });
 * for (const d of await store.outbox.claim(10, { leaseMs: 30_000, workerId: "w1" })) {
 *   const outcome = await deliver(d.subscription, d.message);
 *   await store.outbox.record(d, settleOutcome(outcome, d.attempt));
 * }
 * ```
 */
export interface Outbox {
  publish(event: unknown, options?: PublishOptions): Promise<PublishResult>;
  /**
   * Publishes up to `MAX_BATCH_EVENTS` events in one transaction with one fan-out statement, all or nothing: every
   * event is checked first, and if any is invalid (or reuses a key for a different event) nothing is stored and
   * `InvalidBatchError` names every such index. Answers one `PublishResult` per event, in order; an event whose key
   * was stored before, or used earlier in the batch for the same event, answers that message with `duplicate: true`.
   */
  publishMany(events: readonly BatchEvent[], options?: PublishManyOptions): Promise<PublishResult[]>;
  getMessage(id: string): Promise<OutboxMessage | null>;
  /** Up to `limit` due deliveries in due-time order, leased to `workerId`. */
  claim(limit: number, options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Logs an attempt without changing the state (the lease must still be held). */
  recordAttempt(lease: LeaseRef, attempt: AttemptInput): Promise<void>;
  /**
   * Records an attempt's outcome with its attempt row, in one transaction: `delivered` ends the delivery and the
   * subscription's failure streak; `retry` makes it due again at `retryAt` (failed instead when the subscription
   * was disabled meanwhile); `failed` ends it (kept for resend); `gone` ends it as failed and disables the
   * subscription with `GONE_REASON`, failing its pending deliveries. Every outcome but `delivered` starts the
   * failure streak if none. Throws `lease_lost` if the lease moved on.
   */
  record(lease: LeaseRef, outcome: RecordedOutcome): Promise<void>;
  /** Returns a claimed delivery unattempted (e.g. on shutdown): due now, no attempt counted. */
  release(lease: LeaseRef): Promise<void>;
  /** Makes a finished delivery due now with a fresh retry schedule. */
  resend(deliveryId: number): Promise<Delivery>;
  /** Resends a subscription's failed deliveries created at or after `since`; returns how many. */
  recover(subscriptionId: string, since: Date | number): Promise<number>;
  getDelivery(id: number): Promise<Delivery | null>;
  /** Newest first. */
  listDeliveries(options?: ListDeliveriesOptions): Promise<Page<Delivery>>;
  listAttempts(deliveryId: number): Promise<DeliveryAttempt[]>;
  stats(): Promise<OutboxStats>;
  /**
   * Resolves `true` as soon as new work may exist (a publish, resend or recover; on PostgreSQL
   * from any process via LISTEN/NOTIFY), `false` after `timeoutMs` (default 1000) or on abort.
   */
  waitForWork(signal?: AbortSignal, timeoutMs?: number): Promise<boolean>;
}
