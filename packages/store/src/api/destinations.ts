import type { SigningScheme, SigningSecret } from "./subscriptions.js";

/**
 * The options every delivery target may have (a receiver's destination today; a sender's subscription can take the
 * same columns): they live on the shared target rows, and the claim and the worker read them from there.
 */
export interface EndpointOptions {
  /** A paused target keeps its queue: nothing is claimed until it is resumed, then it drains in order. */
  paused: boolean;
  /**
   * `true`: FIFO in commit order — only the oldest unfinished forward (the head) is claimable, so while it retries
   * the later ones wait behind it. `false`: concurrent, at most `maxInFlight` at once.
   */
  ordered: boolean;
  /** Most attempts in flight at once (concurrent targets); `null` = the worker's per-target default. */
  maxInFlight: number | null;
  /**
   * Most attempts started per second, across every process sharing the database (the claim hands out send times
   * from the target's row); `null` = no limit.
   */
  rateLimit: number | null;
  /** Added to every attempt; never one of core's `REFUSED_TARGET_HEADERS`. */
  headers: Readonly<Record<string, string>>;
  /** One attempt's budget; `null` = the worker's default. */
  timeoutMs: number | null;
}

/** A receiver's destination: where its accepted events are handed on. */
export interface Destination extends EndpointOptions {
  /** `dst_…` */
  id: string;
  /** Unique among destinations; `--forward-to` names its destinations after their URLs. */
  name: string;
  url: string;
  /** The event types it takes; `null` = every type. */
  eventTypes: string[] | null;
  /** `whsec_…`: the forwarded requests are signed (`v1`) with the active ones (unless `signing` is `asymmetric`). */
  secrets: SigningSecret[];
  /**
   * How forwards are signed: `symmetric` (v1, HMAC with `secrets`; default), `asymmetric` (v1a, ed25519 with the
   * receiver's private key) or `both` (while the service moves from one to the other).
   */
  signing: SigningScheme;
  /** `false` after a 410 (or `disable`): its pending forwards were failed; `enable` to take events again. */
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateDestinationInput {
  /** 1 to 100 printable characters, unique among destinations. */
  name: string;
  /** An absolute http(s) URL without credentials. */
  url: string;
  eventTypes?: readonly string[] | null | undefined;
  /** Default: one generated `whsec_` secret. */
  secret?: string | undefined;
  /** Default `symmetric`. */
  signing?: SigningScheme | undefined;
  paused?: boolean | undefined;
  ordered?: boolean | undefined;
  maxInFlight?: number | null | undefined;
  rateLimit?: number | null | undefined;
  headers?: Readonly<Record<string, string>> | null | undefined;
  timeoutMs?: number | null | undefined;
}

/** A patch: each given field replaces the stored one (`headers` as a whole); `null` clears an optional one. */
export interface UpdateDestinationInput {
  name?: string | undefined;
  url?: string | undefined;
  eventTypes?: readonly string[] | null | undefined;
  signing?: SigningScheme | undefined;
  ordered?: boolean | undefined;
  maxInFlight?: number | null | undefined;
  rateLimit?: number | null | undefined;
  headers?: Readonly<Record<string, string>> | null | undefined;
  timeoutMs?: number | null | undefined;
}

/** A destination's queue right now. */
export interface DestinationStats {
  destinationId: string;
  /** Forwards pending or leased. */
  depth: number;
  /** Created time of the oldest unfinished forward (lag), `null` when none. */
  oldestPendingAt: Date | null;
  failed: number;
  /**
   * An ordered destination whose head was attempted and is not delivered yet: the head's `webhook-id` (later events
   * wait behind it: "blocked behind msg_…"); `null` otherwise.
   */
  blockedBehind: string | null;
}

/**
 * The receiver's destinations: targets of the outbox's engine whose deliveries are created in the inbox's
 * transaction (`inbox.record`) for every destination that takes the event's type. The outbox claims them with
 * `claim(n, { scope: "receiver", … })`; resend, recover, list and attempts are the outbox's, by delivery id and by
 * destination id (as `subscriptionId`).
 *
 * @example
 * ```ts
 * const dst = await store.destinations.create({ name: "orders", url: "http://orders.internal/hooks" });
 * await store.destinations.pause(dst.id); // during a deploy: events queue
 * await store.destinations.resume(dst.id); // they drain in order
 * ```
 */
export interface Destinations {
  create(input: CreateDestinationInput): Promise<Destination>;
  /**
   * `--forward-to`: creates the destination `name` with `input`, or updates its url (and secret when given) if it
   * exists; other options of an existing one are left as they are.
   */
  ensure(input: CreateDestinationInput): Promise<Destination>;
  get(id: string): Promise<Destination | null>;
  getByName(name: string): Promise<Destination | null>;
  /** In creation order. */
  list(): Promise<Destination[]>;
  /** Throws `not_found` if it does not exist. */
  update(id: string, patch: UpdateDestinationInput): Promise<Destination>;
  pause(id: string): Promise<Destination>;
  /** Unpauses it and wakes the workers. */
  resume(id: string): Promise<Destination>;
  /** Adds `secret` (default: a generated one); the others expire after `graceMs` (default 24 h). */
  rotateSecret(id: string, secret?: string, options?: { graceMs?: number | undefined }): Promise<Destination>;
  /** Disables it and fails its pending forwards (as a 410 does). */
  disable(id: string, reason: string): Promise<Destination>;
  /** Enables it again (after a 410); `outbox.recover(id, since)` brings back its failed forwards. */
  enable(id: string): Promise<Destination>;
  /** Deletes it with its forwards; `false` if it did not exist. */
  delete(id: string): Promise<boolean>;
  /** Every destination's queue (one row each, creation order). */
  stats(): Promise<DestinationStats[]>;
}
