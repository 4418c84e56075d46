/** A signing secret (`whsec_…`); several may be active during a rotation. */
export interface SigningSecret {
  secret: string;
  /** After this instant the secret is no longer used to sign; `null` = no expiry. */
  expiresAt: Date | null;
  createdAt: Date;
}

/**
 * Which Standard Webhooks signatures a subscription's deliveries carry: `symmetric` (`v1`, HMAC with the
 * subscription's `whsec_` secrets), `asymmetric` (`v1a`, ed25519 with the sender's `whsk_` keys), or `both`
 * during a migration from one to the other.
 */
export type { SigningScheme } from "@plant-store/core";

import type { SigningScheme } from "@plant-store/core";

/** Where and how the sender delivers events. */
export interface Subscription {
  /** `sub_…` */
  id: string;
  /** The application it belongs to (`app_…`). */
  applicationId: string;
  /** The operator's own id for it, unique within its application; `null` when none was given. */
  uid: string | null;
  description: string;
  metadata: Record<string, string>;
  url: string;
  /** Sent as `Authorization: Bearer <token>` on every attempt. */
  token: string;
  secrets: SigningSecret[];
  /** Default `symmetric`. */
  signing: SigningScheme;
  enabled: boolean;
  /** The event types it receives (as Svix's `filterTypes`); `null` = every event type. */
  eventTypes: string[] | null;
  disabledReason: string | null;
  disabledAt: Date | null;
  /**
   * Most attempts started per second, across every sender process sharing the database (the claim hands out send
   * times from the subscription's row); `null` = no limit.
   */
  rateLimit: number | null;
  /**
   * Added to every attempt (names lower case); never one of core's `REFUSED_TARGET_HEADERS` nor `authorization`
   * (the subscription's bearer token is sent in it).
   */
  headers: Record<string, string>;
  /** Start of the current failure streak (first failed attempt since the last success), for auto-disable. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type SecretInput = string | { secret: string; expiresAt?: Date | number | null | undefined };

export interface CreateSubscriptionInput {
  /** The application it belongs to (`app_…`); default `app_default`. Throws `not_found` for an unknown one. */
  applicationId?: string | undefined;
  /** Unique within the application (`uid_taken` otherwise): 1 to 100 visible ASCII characters. */
  uid?: string | null | undefined;
  /** At most 500 characters. */
  description?: string | undefined;
  /** At most 32 string values. */
  metadata?: Readonly<Record<string, string>> | undefined;
  url: string;
  token: string;
  secrets?: readonly SecretInput[] | undefined;
  /** Default `symmetric`. */
  signing?: SigningScheme | undefined;
  /** Default `true`. */
  enabled?: boolean | undefined;
  /**
   * The event types it receives: a non-empty list of distinct types (each 1 to 100 characters), or `null` /
   * absent for every type. The store does not check them against a catalog (the caller does).
   */
  eventTypes?: readonly string[] | null | undefined;
  /** Attempts per second (1/3600 to `MAX_RATE_LIMIT`); `null`/absent = no limit. */
  rateLimit?: number | null | undefined;
  /** Added to every attempt; `null`/absent = none. */
  headers?: Readonly<Record<string, string>> | null | undefined;
}

export interface UpdateSubscriptionInput {
  uid?: string | null | undefined;
  description?: string | undefined;
  /** Replaces the whole map. */
  metadata?: Readonly<Record<string, string>> | undefined;
  url?: string | undefined;
  token?: string | undefined;
  /** Replaces the whole list. */
  secrets?: readonly SecretInput[] | undefined;
  /** Replaces the filter; `null` = every event type from now on. */
  eventTypes?: readonly string[] | null | undefined;
  signing?: SigningScheme | undefined;
  /** `null` removes the limit. */
  rateLimit?: number | null | undefined;
  /** Replaces the whole set; `null` or `{}` removes them. */
  headers?: Readonly<Record<string, string>> | null | undefined;
}

/**
 * Sender-side endpoints. Tokens and secrets are encrypted at rest when the store has an
 * encryption key.
 *
 * @example
 * ```ts
 * const sub = await store.subscriptions.create({ url: "https://example.com/hook", token, secrets: [secret] });
 * await store.subscriptions.rotateSecret(sub.id, createSecret(), { graceMs: 24 * 3600_000 });
 * ```
 */
export interface Subscriptions {
  create(input: CreateSubscriptionInput): Promise<Subscription>;
  get(id: string): Promise<Subscription | null>;
  list(options?: { enabled?: boolean | undefined }): Promise<Subscription[]>;
  /** Throws `not_found` if it does not exist. */
  update(id: string, patch: UpdateSubscriptionInput): Promise<Subscription>;
  /**
   * Adds `secret` and gives every secret without an expiry `expiresAt = now + graceMs` (default 24 h),
   * so receivers can switch over while both verify.
   */
  rotateSecret(id: string, secret: string, options?: { graceMs?: number | undefined }): Promise<Subscription>;
  /** Disables it and fails its pending deliveries (recover them later with `outbox.recover`). */
  disable(id: string, reason: string): Promise<Subscription>;
  /** Enables it and clears the failure streak. */
  enable(id: string): Promise<Subscription>;
  /** Deletes it with its deliveries; `false` if it did not exist. */
  delete(id: string): Promise<boolean>;
  /**
   * Disables every enabled subscription whose failure streak started more than `forMs` ago;
   * returns their ids.
   */
  disableFailing(forMs: number, reason?: string): Promise<string[]>;
}
