import { EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";
import type { HeaderLookup } from "./types.js";

/**
 * The headers an event carries to `onEvent`, in this order: `webhook-event-type`, `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, `content-type`, `user-agent` (those the request has). The first four come as the pipeline
 * already read them. Written out name by name, so V8 keeps each store site monomorphic.
 *
 * @example
 * ```ts
 * keptHeaders(request.headers, "plant.created", { id: "msg_1", rawTimestamp: "1700000000", signature: "v1,…" });
 * ```
 */
export function keptHeaders(
  headers: HeaderLookup,
  type: string | null | undefined,
  read: {
    readonly id: string | null;
    readonly rawTimestamp: string | null;
    readonly signature: string | null | undefined;
  },
): Record<string, string> {
  const kept: Record<string, string> = {};
  if (type != null) kept[EVENT_TYPE_HEADER] = type;
  if (read.id != null) kept[WEBHOOK_HEADERS.id] = read.id;
  if (read.rawTimestamp != null) kept[WEBHOOK_HEADERS.timestamp] = read.rawTimestamp;
  if (read.signature != null) kept[WEBHOOK_HEADERS.signature] = read.signature;
  const contentType = headers("content-type");
  if (contentType != null) kept["content-type"] = contentType;
  const userAgent = headers("user-agent");
  if (userAgent != null) kept["user-agent"] = userAgent;
  return kept;
}
