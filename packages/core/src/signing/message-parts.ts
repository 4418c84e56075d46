import { utf8Encode } from "../encoding.js";

/** The longest `webhook-id` accepted, in characters. */
export const MAX_ID_LENGTH = 256;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const DIGITS = /^[0-9]{1,16}$/;

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
  if (id.length > MAX_ID_LENGTH || !VISIBLE_ASCII.test(id)) {
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
  if (!DIGITS.test(value)) return null;
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
