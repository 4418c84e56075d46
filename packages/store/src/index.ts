/**
 * `@plant-store/store`: the durable inbox (receiver) and outbox (sender) of the Plant Store
 * webhook behind one interface — embedded SQLite by default, PostgreSQL to scale out.
 *
 * @example
 * ```ts
 * import { openStore } from "@plant-store/store";
 * const store = await openStore("./data/plant-store.db");
 * const { duplicate } = await store.inbox.record({ webhookId, body, headers });
 * ```
 *
 * @module
 */

/** Re-exported from `@plant-store/core`, where the outbox's rules are defined once. */
export { DELIVERY_STATES, MAX_BATCH_EVENTS, MAX_GRACE_MS } from "@plant-store/core";
export { activeSecrets } from "./active-secrets.js";
export type {
  Application,
  ApplicationReads,
  Applications,
  CreateApplicationInput,
  DeletedApplication,
  PortalToken,
  UpdateApplicationInput,
} from "./api/applications.js";
export type {
  CreateDestinationInput,
  Destination,
  DestinationStats,
  Destinations,
  EndpointOptions,
  UpdateDestinationInput,
} from "./api/destinations.js";
export type {
  ConsumedEvent,
  ConsumeOptions,
  Consumer,
  HeaderInput,
  Inbox,
  InboxEvent,
  InboxListOptions,
  InboxRecordInput,
  InboxRecordResult,
  InboxStreamOptions,
  Page,
} from "./api/inbox.js";
export type {
  AttemptInput,
  BatchEvent,
  ClaimedDelivery,
  ClaimedTarget,
  ClaimOptions,
  Delivery,
  DeliveryAttempt,
  DeliveryState,
  LeaseRef,
  ListDeliveriesOptions,
  Outbox,
  OutboxMessage,
  OutboxStats,
  PublishManyOptions,
  PublishOptions,
  PublishResult,
  RecordedOutcome,
  SqlClient,
  TargetScope,
  TraceCarrier,
} from "./api/outbox.js";
export type { PurgeOptions, PurgeResult, Store } from "./api/store.js";
export type {
  CreateSubscriptionInput,
  SecretInput,
  SigningScheme,
  SigningSecret,
  Subscription,
  Subscriptions,
  UpdateSubscriptionInput,
} from "./api/subscriptions.js";
export {
  type BatchProblem,
  InvalidBatchError,
  InvalidEventError,
  StoreConfigError,
  StoreConflictError,
  StoreError,
  StoreInputError,
  StoreUnavailableError,
} from "./errors.js";
export { openStore } from "./open-store.js";
export type { OpenStoreOptions, StoreLogger } from "./options.js";
export {
  DEFAULT_APPLICATION_ID,
  isReservedApplication,
  OPERATOR_APPLICATION_ID,
  PORTAL_TOKEN_PREFIX,
  PORTAL_TTL_DEFAULT_MS,
  PORTAL_TTL_MAX_MS,
} from "./shared/application-rules.js";
export {
  checkDestinationUrl,
  MAX_IN_FLIGHT,
  MAX_TARGET_TIMEOUT_MS,
} from "./shared/destination-rules.js";
export { MAX_RATE_LIMIT } from "./shared/endpoint-options.js";
export { FORWARD_GATE_TTL_MS, forwardMessageId } from "./shared/forward-gate.js";
export { KEPT_HEADERS } from "./shared/headers.js";
export { PURGE_BATCH_SIZE } from "./shared/purge.js";
export { parseEncryptionKey } from "./shared/secret-box.js";
export { SIGNING_SCHEMES } from "./shared/subscription-codec.js";
export { TARGET_ID_PREFIX, TARGET_SCOPES } from "./shared/target-scope.js";
export { MAX_RESPONSE_BYTES } from "./shared/truncate.js";
export { isStorableTraceContext } from "./shared/validate.js";
