import { utf8Encode } from "../encoding.js";

const MAX_ID_LENGTH = 256;
const MAX_TIMESTAMP_DIGITS = 16;

/** Whether every character of `text` lies in `low`…`high` (char codes): a loop, cheaper than a regex per request. */
function within(text: string, low: number, high: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < low || code > high) return false;
  }
  return true;
}

/**
 * Why a `webhook-id` is unusable, or `null` when it is fine: 1 to 256 visible ASCII characters (no spaces, no
 * control characters). Dots are allowed, as the Standard Webhooks reference allows them. The signed content
 * `${id}.${timestamp}.${body}` can then be re-split: a signature for id `evt.1700000000` also verifies id `evt` with
 * timestamp `1700000000` and a body starting `<the real timestamp>.`. The receive pipeline refuses such a body (a
 * New Plant is a JSON object, it starts with `{`); a caller of the standalone `verify()` whose bodies may start
 * with digits should not accept ids with dots.
 *
 * @example
 * ```ts
 * idProblem("msg_p5jXN8AQM9LWM0D4loKWxJek"); // null
 * idProblem("evt.2024.1");                   // null
 * idProblem("msg 1");                        // "it must be 1 to 256 visible ASCII characters."
 * ```
 */
export function idProblem(id: string): string | null {
  if (typeof id !== "string") return `it must be a string of 1 to ${MAX_ID_LENGTH} visible ASCII characters.`;
  if (id.length === 0 || id.length > MAX_ID_LENGTH || !within(id, 0x21, 0x7e)) {
    return `it must be 1 to ${MAX_ID_LENGTH} visible ASCII characters.`;
  }
  return null;
}

/**
 * Reads a `webhook-timestamp` header: unix seconds written as digits only, else `null`.
 *
 * @example
 * ```ts
 * parseTimestamp("1614265330"); // 1614265330
 * parseTimestamp("1614265330.5"); // null
 * ```
 */
export function parseTimestamp(value: string): number | null {
  if (value.length === 0 || value.length > MAX_TIMESTAMP_DIGITS || !within(value, 0x30, 0x39)) return null;
  const seconds = Number(value);
  return Number.isSafeInteger(seconds) ? seconds : null;
}

/**
 * The bytes a Standard Webhooks v1 signature covers: `${id}.${timestamp}.` followed by the body exactly as given
 * (a string body is UTF-8 encoded). `timestamp` is the header text, so verification signs what was sent.
 *
 * @example
 * ```ts
 * signedContent("msg_1", "1614265330", '{"a":1}'); // UTF-8 of 'msg_1.1614265330.{"a":1}'
 * ```
 */
export function signedContent(id: string, timestamp: string, body: string | Uint8Array): Uint8Array {
  const head = utf8Encode(`${id}.${timestamp}.`);
  const tail = typeof body === "string" ? utf8Encode(body) : body;
  const content = new Uint8Array(head.length + tail.length);
  content.set(head);
  content.set(tail, head.length);
  return content;
}
