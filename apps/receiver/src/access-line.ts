import { createLineWriter, type LineValue } from "@plant-store/app-kit";
import type { Logger } from "pino";

/** The fields of a webhook request's log line, in the order they are written. */
const ACCESS_LINE_KEYS = ["webhookId", "eventType", "status", "outcome", "reason", "ms"] as const;

/** One webhook request's log line: `{ webhookId, eventType, status, outcome, reason?, ms }`, message `webhook`. */
export type AccessLine = (
  values: { readonly [key in (typeof ACCESS_LINE_KEYS)[number]]?: LineValue },
) => void;

/**
 * The receiver's line per webhook request, as `logger.info(fields, "webhook")` writes it, without pino's per-key
 * lookups (`createLineWriter`).
 *
 * @example
 * ```ts
 * const line = createAccessLine(logger);
 * line({ webhookId: "msg_1", eventType: "newPlant", status: 200, outcome: "stored", ms: 1.2 });
 * ```
 */
export function createAccessLine(logger: Logger): AccessLine {
  return createLineWriter(logger, "info", "webhook", ACCESS_LINE_KEYS);
}
