import { DEFAULT_EVENT_TYPE } from "@plant-store/spec";
import type { InboxRecordInput } from "../api/inbox.js";
import type { ResolvedOptions } from "../options.js";
import { pickHeaders } from "./headers.js";
import type { PendingInboxRow } from "./rows.js";
import { toMillis } from "./time.js";
import { checkEventType, checkKey, copyBody } from "./validate.js";

/**
 * Checks what `inbox.record()` was given and makes it the row both backends insert: the webhook id, the event type
 * (default New Plant), a copy of the body, the kept headers and the received time (default the store's clock).
 *
 * @example
 * ```ts
 * const row = pendingInboxRow({ webhookId: "msg_1", body: "{}" }, resolveOptions({}));
 * ```
 */
export function pendingInboxRow(input: InboxRecordInput, options: ResolvedOptions): PendingInboxRow {
  return {
    webhookId: checkKey(input?.webhookId, "webhook id"),
    eventType: checkEventType(input.eventType, DEFAULT_EVENT_TYPE),
    body: copyBody(input.body),
    headers: pickHeaders(input.headers, options.keptHeaders),
    receivedAt: input.receivedAt === undefined ? options.now() : toMillis(input.receivedAt),
  };
}

/**
 * The time `markProcessed(webhookId, at)` records: `at`, or the store's clock.
 *
 * @example
 * ```ts
 * processedAt(new Date(0), options); // 0
 * ```
 */
export function processedAt(at: Date | number | undefined, options: ResolvedOptions): number {
  return at === undefined ? options.now() : toMillis(at);
}
