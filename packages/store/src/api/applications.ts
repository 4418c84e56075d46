import type { Page } from "./inbox.js";
import type { Delivery, ListDeliveriesOptions, OutboxMessage } from "./outbox.js";
import type { Subscription } from "./subscriptions.js";

/** One customer of the sender: its subscriptions, and whom a portal token lets see them. */
export interface Application {
  /** `app_…`; the default application, which subscriptions made before applications existed belong to, is `app_default`. */
  id: string;
  /** The operator's own id for the customer (unique; 1 to 100 visible ASCII characters, not starting with `app_`). */
  uid: string;
  name: string;
  metadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateApplicationInput {
  uid: string;
  name: string;
  metadata?: Readonly<Record<string, string>> | undefined;
}

export interface UpdateApplicationInput {
  uid?: string | undefined;
  name?: string | undefined;
  /** Replaces the whole map. */
  metadata?: Readonly<Record<string, string>> | undefined;
}

/** What `applications.delete` removed, as it is recorded. */
export interface DeletedApplication {
  id: string;
  uid: string;
  name: string;
  /** Its subscriptions, deleted with it (their deliveries and attempts with them). */
  subscriptions: number;
  deletedAt: Date;
}

/** A portal token as `createPortalToken` hands it out: the plain token exists only in this value. */
export interface PortalToken {
  token: string;
  applicationId: string;
  expiresAt: Date;
}

/**
 * Reads of ONE application's data: every query takes the application id as a parameter, so a resource of another
 * application is not found, exactly as one that does not exist.
 */
export interface ApplicationReads {
  readonly applicationId: string;
  listSubscriptions(options?: { enabled?: boolean | undefined }): Promise<Subscription[]>;
  getSubscription(id: string): Promise<Subscription | null>;
  getDelivery(id: number): Promise<Delivery | null>;
  /** Newest first; only deliveries to the application's subscriptions. */
  listDeliveries(options?: ListDeliveriesOptions): Promise<Page<Delivery>>;
  /** A message the application was published to, or one it has a delivery of. */
  getMessage(id: string): Promise<OutboxMessage | null>;
}

/**
 * The sender's applications (one per customer), their portal tokens, and reads scoped to one of them.
 *
 * @example
 * ```ts
 * const app = await store.applications.create({ uid: "cust_42", name: "Acme" });
 * const { token } = await store.applications.createPortalToken(app.id, { ttlMs: 3_600_000 });
 * const reads = store.applications.reads(app.id);
 * ```
 */
export interface Applications {
  /** Throws `uid_taken` when another application has the uid. */
  create(input: CreateApplicationInput): Promise<Application>;
  /** By id (`app_…`) or uid. */
  get(idOrUid: string): Promise<Application | null>;
  /** In creation order (the default application first). */
  list(): Promise<Application[]>;
  /** Throws `not_found`, or `uid_taken`. */
  update(id: string, patch: UpdateApplicationInput): Promise<Application>;
  /**
   * Deletes it with its subscriptions (their deliveries, pending ones included, and attempts with them) and its
   * portal tokens, in one transaction, and records the deletion; `null` if it did not exist. The default and the
   * operator's application cannot be deleted (`invalid_application`).
   */
  delete(id: string): Promise<DeletedApplication | null>;
  /** Deletions recorded, newest first. */
  listDeletions(options?: { limit?: number | undefined }): Promise<DeletedApplication[]>;
  /** A new portal token, valid `ttlMs` (default `PORTAL_TTL_DEFAULT_MS`, at most `PORTAL_TTL_MAX_MS`). */
  createPortalToken(id: string, options?: { ttlMs?: number | undefined }): Promise<PortalToken>;
  /** Revokes every portal token of the application handed out so far; throws `not_found`. */
  revokePortalTokens(id: string): Promise<void>;
  /** The application a portal token is valid for now, or `null` (unknown, expired, revoked, malformed). */
  verifyPortalToken(token: string): Promise<{ applicationId: string; expiresAt: Date } | null>;
  /** Reads scoped to application `id`. */
  reads(id: string): ApplicationReads;
}
