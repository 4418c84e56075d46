import { EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";

/**
 * Header names a target's own `headers` may never set: the Standard Webhooks headers and the event type (the
 * delivery writes them), the body's framing and the connection's. Lower case. `authorization` is refused only for a
 * target that has a bearer token of its own ({@link BEARER_HEADER}); a receiver's destination may set it to its
 * service's credential (a forward never carries the provider's: the request is built anew).
 */
export const REFUSED_TARGET_HEADERS: readonly string[] = [
  WEBHOOK_HEADERS.id,
  WEBHOOK_HEADERS.timestamp,
  WEBHOOK_HEADERS.signature,
  EVENT_TYPE_HEADER,
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "host",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "user-agent",
];

/** The header a target's bearer token is sent in: its own `headers` may not set it when it has a token. */
export const BEARER_HEADER = "authorization";

/** Most headers one target adds. */
export const MAX_TARGET_HEADERS = 32;

// RFC 9110 token (a header name) and a sendable value (no line breaks, NUL, nothing beyond Latin-1; not empty).
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
const HEADER_VALUE = /^(?=.*\S)[^\r\n\0\u0100-\uffff]{1,4096}$/s;

/**
 * Why a target's extra headers cannot be sent, or `undefined` when they can: at most {@link MAX_TARGET_HEADERS},
 * names are HTTP tokens not in {@link REFUSED_TARGET_HEADERS} (nor `authorization` with `bearer`: the target has a
 * token) (compared case-insensitively), values are header-safe
 * text of at most 4096 characters. The message names the header, never its value.
 *
 * @example
 * ```ts
 * import { targetHeadersProblem } from "@plant-store/core";
 * targetHeadersProblem({ "webhook-id": "x" }); // "The header webhook-id is set by the delivery …"
 * targetHeadersProblem({ Authorization: "Bearer svc" }); // undefined: a destination's own credential
 * targetHeadersProblem({ Authorization: "Bearer svc" }, { bearer: true }); // refused: the token sets it
 * ```
 */
export function targetHeadersProblem(
  headers: unknown,
  options: { bearer?: boolean } = {},
): string | undefined {
  if (headers === null || typeof headers !== "object" || Array.isArray(headers)) {
    return "headers must be an object of header names to string values.";
  }
  const entries = Object.entries(headers);
  if (entries.length > MAX_TARGET_HEADERS) return `At most ${MAX_TARGET_HEADERS} headers may be added.`;
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) return `${JSON.stringify(name.slice(0, 100))} is not a valid header name.`;
    const lower = name.toLowerCase();
    if (REFUSED_TARGET_HEADERS.includes(lower)) {
      return `The header ${lower} is set by the delivery itself and cannot be added (refused: ${REFUSED_TARGET_HEADERS.join(", ")}).`;
    }
    if (options.bearer && lower === BEARER_HEADER) {
      return `The header ${lower} carries the target's bearer token and cannot be added.`;
    }
    if (seen.has(lower)) return `The header ${lower} is given twice.`;
    seen.add(lower);
    if (typeof value !== "string" || !HEADER_VALUE.test(value)) {
      return `The value of header ${lower} must be 1 to 4096 characters of header-safe text (no line breaks, Latin-1 only).`;
    }
  }
  return undefined;
}
