/**
 * `@plant-store/core`: pure logic for the New Plant webhook.
 *
 * @module
 */
export {
  BLOCKED_ADDRESS_CODE,
  checkTarget,
  DEFAULT_JITTER,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_TIMEOUT_MS,
  type DeliverOptions,
  type DeliveryOutcome,
  type DeliveryTarget,
  deliver,
  type NextAttempt,
  type NextAttemptOptions,
  nextAttempt,
  type OutcomeKind,
  type OutgoingMessage,
  parseRetryAfter,
  STANDARD_SCHEDULE_MS,
} from "./delivery/index.js";
export { type ErrorBody, HttpError, PlantStoreError } from "./errors.js";
export {
  createMessageId,
  createMessageIdGenerator,
  decodeMessageIdTime,
  isMessageId,
  type MessageIdOptions,
} from "./ids.js";
export { VERSION } from "./version.js";
