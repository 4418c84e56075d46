import { isPlainJsonText } from "@plant-store/core";
import type { HeaderInput } from "../api/inbox.js";
import { StoreInputError } from "../errors.js";

/**
 * Headers kept with every inbox event: enough to replay and debug, nothing secret.
 *
 * @example
 * ```ts
 * KEPT_HEADERS.includes("webhook-id"); // true
 * ```
 */
export const KEPT_HEADERS: readonly string[] = [
  "webhook-event-type",
  "webhook-id",
  "webhook-timestamp",
  "content-type",
  "user-agent",
];

// Never stored even if an app lists them: credentials, and signatures (useless after verification,
// and a leak of one lets anyone replay the event inside its timestamp window).
const NEVER_KEPT = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "webhook-signature",
  "x-api-key",
]);

/** A field name (RFC 9110 §5.1): a token, `tchar`s only (§5.6.2). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Builds the allow-list: the defaults plus `extra`, minus credentials. An extra entry that is not a field name
 * (RFC 9110: a token) is refused with `invalid_option`, since no request can carry it; so every kept name is
 * printable ASCII without `"` or `\`, which {@link headersJson} relies on.
 *
 * @example
 * ```ts
 * keptHeaderSet(["x-request-id", "authorization"]); // has x-request-id, not authorization
 * keptHeaderSet(["x request id"]); // throws StoreInputError, code "invalid_option"
 * ```
 */
export function keptHeaderSet(extra: readonly string[]): ReadonlySet<string> {
  if (!Array.isArray(extra)) {
    throw new StoreInputError("invalid_option", "keepHeaders must be an array of header names.");
  }
  for (const name of extra) {
    if (typeof name !== "string" || !FIELD_NAME.test(name)) {
      throw new StoreInputError(
        "invalid_option",
        `keepHeaders: ${typeof name === "string" ? JSON.stringify(name.slice(0, 100)) : `a ${typeof name}`} is not a header name; a name is letters, digits and !#$%&'*+-.^_\`|~ (RFC 9110 §5.6.2).`,
      );
    }
  }
  const names = new Set([...KEPT_HEADERS, ...extra.map((h) => h.toLowerCase())]);
  for (const name of NEVER_KEPT) names.delete(name);
  return names;
}

/**
 * Keeps the allowed headers, lower-cased; repeated values are joined with ", ".
 *
 * @example
 * ```ts
 * pickHeaders({ "Content-Type": "application/json", Authorization: "Bearer x" }, keptHeaderSet([]));
 * // { "content-type": "application/json" }
 * ```
 */
export function pickHeaders(
  input: HeaderInput | undefined,
  keep: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!input) return out;
  if (typeof (input as { forEach?: unknown }).forEach === "function" && !Array.isArray(input)) {
    (input as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      addHeader(out, keep, name, value);
    });
  } else if (Symbol.iterator in input) {
    for (const [name, value] of input as Iterable<readonly [string, string]>)
      addHeader(out, keep, name, value);
  } else {
    const record = input as Record<string, string | readonly string[] | undefined>;
    const names = Object.keys(record);
    // Until a field is written under a name it did not arrive with (lower-cased), `out` holds only names as they
    // arrived, all distinct (an object's keys), so the next name cannot already be in it. A dropped field, an array
    // value or `__proto__` keeps its own name and does not end that.
    let taken = true;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const value = record[name];
      if (typeof value === "string" && taken) {
        // The usual field (node:http's, the receive pipeline's): a lower-case name with one text value, kept as it
        // is, or dropped when its name is not kept and already lower-case (no other name can then be kept for it).
        if (keep.has(name)) {
          if (name !== "__proto__") {
            out[name] = value;
            continue;
          }
        } else {
          const lower = name.toLowerCase();
          if (lower === name) continue;
          if (keep.has(lower)) taken = false;
        }
      } else if (value !== undefined && !keep.has(name) && keep.has(name.toLowerCase())) taken = false;
      addHeader(out, keep, name, value);
    }
  }
  return out;
}

/** Adds one field to `out` when its name, lower-cased, is kept; a repeated field's values are joined with ", ". */
function addHeader(
  out: Record<string, string>,
  keep: ReadonlySet<string>,
  name: string,
  value: string | readonly string[] | undefined,
): void {
  // Names usually arrive lower-cased already (node:http, Fetch Headers): only others are lower-cased here.
  const key = keep.has(name) ? name : name.toLowerCase();
  if (value === undefined || !keep.has(key)) return;
  const text = typeof value === "string" ? value : value.join(", ");
  // Own fields only: a header an app keeps may be named `constructor`, or `__proto__` (a valid field name).
  const joined = Object.hasOwn(out, key) ? `${out[key]}, ${text}` : text;
  if (key === "__proto__")
    Object.defineProperty(out, key, {
      value: joined,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = joined;
}

/**
 * `JSON.stringify(headers)` of a record {@link pickHeaders} returned, written directly when every value is printable
 * ASCII without `"` or `\` (header text as HTTP carries it): the same text byte for byte, for less than V8's
 * serializer costs on every inbox write.
 * Its names are kept names, which {@link keptHeaderSet} made sure are tokens: they need no escaping and are not
 * checked again. Anything else goes through `JSON.stringify`.
 *
 * @example
 * ```ts
 * headersJson({ "webhook-id": "msg_1", "content-type": "application/json" });
 * // '{"webhook-id":"msg_1","content-type":"application/json"}'
 * ```
 */
export function headersJson(headers: Readonly<Record<string, string>>): string {
  const names = Object.keys(headers);
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = headers[name];
    if (typeof value !== "string" || !isPlainJsonText(value)) return JSON.stringify(headers);
    out += (i === 0 ? '"' : ',"') + name + '":"' + value + '"';
  }
  return `${out}}`;
}
