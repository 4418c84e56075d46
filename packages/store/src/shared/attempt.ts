import type { AttemptInput } from "../api/outbox.js";
import { StoreInputError } from "../errors.js";
import { toMillis } from "./time.js";
import { MAX_RESPONSE_BYTES, truncateUtf8 } from "./truncate.js";

/** An attempt ready for insertion: times resolved, texts truncated. */
export interface AttemptValues {
  at: number;
  status: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

/** Validates and normalizes an `AttemptInput` (response ≤ 4 KiB, error ≤ 1 KiB). */
export function attemptValues(input: AttemptInput, now: number): AttemptValues {
  const status = input.status ?? null;
  if (status !== null && (!Number.isInteger(status) || status < 100 || status > 999)) {
    throw new StoreInputError(
      "invalid_attempt",
      "attempt.status must be an HTTP status code (100-999) or null.",
    );
  }
  if (typeof input.latencyMs !== "number" || !(input.latencyMs >= 0)) {
    throw new StoreInputError("invalid_attempt", "attempt.latencyMs must be a number ≥ 0.");
  }
  return {
    at: input.at === undefined ? now : toMillis(input.at),
    status,
    latencyMs: Math.round(input.latencyMs),
    responseBody:
      input.responseBody === null || input.responseBody === undefined
        ? null
        : truncateUtf8(input.responseBody, MAX_RESPONSE_BYTES),
    error: input.error ? truncateUtf8(input.error, 1024) : null,
  };
}
