/**
 * `@plant-store/core`: pure logic for the New Plant webhook.
 *
 * @module
 */

export {
  type Auth,
  type BearerChallengeOptions,
  type BearerCheck,
  type BearerCheckOptions,
  bearerChallenge,
  checkTokenFormat,
  createAuth,
  createBearerCheck,
  createToken,
  createTokenVerifier,
  hashToken,
  type ParsedAuthorization,
  parseAuthorization,
  TOKEN_PREFIX,
  type TokenVerifier,
} from "./auth/index.js";
export type { CryptoProvider } from "./crypto/types.js";
export { parseDateTime } from "./date-time.js";
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
  fetchTransport,
  type NextAttempt,
  type NextAttemptOptions,
  nextAttempt,
  type OutcomeKind,
  type OutcomeReason,
  type OutgoingMessage,
  parseRetryAfter,
  readCappedChunks,
  STANDARD_SCHEDULE_MS,
  settleOutcome,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./delivery/index.js";
export {
  DEFAULT_DISABLE_REASON,
  DEFAULT_GRACE_MS,
  DELIVERY_STATES,
  type DeliveryState,
  EVENT_TYPE_PATTERN,
  failureReason,
  GONE_REASON,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_RULE,
  isDeliveryState,
  isIdempotencyKey,
  MAX_BATCH_EVENTS,
  MAX_DISABLE_REASON_LENGTH,
  MAX_GRACE_MS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  PAGE_SIZE,
  SIGNING_SCHEMES,
  type SigningScheme,
  signsWith,
} from "./delivery/outbox-rules.js";
export { type ErrorBody, HttpError, PlantStoreError } from "./errors.js";
export {
  ApiError,
  type CompiledSchema,
  compileSchema,
  eventValidator,
  type Issue,
  isNumberLiteral,
  NewPlant,
  NewPlantLossless,
  type NumberLiteral,
  newPlantEntry,
  type ParseMode,
  type ParseOptions,
  type ParseResult,
  Plant,
  parseEvent,
  parseNewPlant,
  serializeEvent,
  serializeNewPlant,
} from "./events/index.js";
export {
  createMessageId,
  createMessageIdGenerator,
  decodeMessageIdTime,
  isMessageId,
  type MessageIdOptions,
} from "./ids.js";
export { parseJsonLossless } from "./json/parse-lossless.js";
export { toJsonPointer } from "./json/pointer.js";
export { isPlainJsonText, stringifyJson } from "./json/stringify.js";
export {
  createMemoryDedup,
  createWebhookHandler,
  DEFAULT_MAX_BODY_BYTES,
  type DedupStore,
  type HandleOptions,
  type HeaderLookup,
  type Logger,
  type OnEventResult,
  type ReceivedEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookOutcome,
  type WebhookRequest,
  type WebhookResponse,
} from "./receive/index.js";
export { errorResponse } from "./receive/responses.js";
export {
  createKeyPair,
  createSecret,
  createSigning,
  createVerifier,
  type KeyPair,
  PRIVATE_KEY_PREFIX,
  PUBLIC_KEY_PREFIX,
  parsePrivateKey,
  parsePublicKey,
  parseSecret,
  publicKeyOf,
  SECRET_PREFIX,
  type SignatureHeaderInput,
  type SignedMessage,
  type Signing,
  type SignKey,
  sign,
  signatureHeader,
  type Verifier,
  type VerifyFailure,
  type VerifyInput,
  type VerifyResult,
  verify,
} from "./signing/index.js";
export { withoutCredentials } from "./url-credentials.js";
export { VERSION } from "./version.js";
