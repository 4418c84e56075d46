/**
 * One delivery attempt (`deliver`) and the retry policy after it (`nextAttempt`).
 *
 * @example
 * ```ts
 * import { deliver, nextAttempt } from "@plant-store/core";
 * const outcome = await deliver(target, { id: "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB", body });
 * const next = nextAttempt(1, outcome); // { retry: true, delayMs: 5210 } or { retry: false, reason }
 * ```
 *
 * @module
 */
export { checkTarget } from "./check-target.js";
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, deliver, fetchTransport } from "./deliver.js";
export { BLOCKED_ADDRESS_CODE } from "./describe-error.js";
export {
  DEFAULT_JITTER,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type NextAttempt,
  type NextAttemptOptions,
  nextAttempt,
  STANDARD_SCHEDULE_MS,
  settleOutcome,
} from "./next-attempt.js";
export {
  DEFAULT_DISABLE_REASON,
  DEFAULT_GRACE_MS,
  DELIVERY_STATES,
  type DeliveryState,
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
  PORTAL_TOKEN_PREFIX,
  PORTAL_TTL_DEFAULT_MS,
  PORTAL_TTL_MAX_MS,
  PORTAL_TTL_MIN_MS,
  signsWith,
  UID_PATTERN,
} from "./outbox-rules.js";
export { readCappedChunks } from "./read-capped.js";
export { parseRetryAfter } from "./retry-after.js";
export {
  BEARER_HEADER,
  MAX_TARGET_HEADERS,
  REFUSED_TARGET_HEADERS,
  targetHeadersProblem,
} from "./target-headers.js";
export type {
  DeliverOptions,
  DeliveryOutcome,
  DeliveryTarget,
  OutcomeKind,
  OutcomeReason,
  OutgoingMessage,
  Transport,
  TransportRequest,
  TransportResponse,
} from "./types.js";
