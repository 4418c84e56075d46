import type { HeaderInput } from "../api/inbox.js";

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

/**
 * Builds the allow-list: the defaults plus `extra`, minus credentials.
 *
 * @example
 * ```ts
 * keptHeaderSet(["x-request-id", "authorization"]); // has x-request-id, not authorization
 * ```
 */
export function keptHeaderSet(extra: readonly string[]): ReadonlySet<string> {
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
  const add = (name: string, value: string | readonly string[] | undefined) => {
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
  };
  if (typeof (input as { forEach?: unknown }).forEach === "function" && !Array.isArray(input)) {
    (input as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      add(name, value);
    });
  } else if (Symbol.iterator in input) {
    for (const [name, value] of input as Iterable<readonly [string, string]>) add(name, value);
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
      // The usual field (node:http's, the receive pipeline's): a kept lower-case name with one text value.
      if (taken && typeof value === "string" && keep.has(name) && name !== "__proto__") out[name] = value;
      else {
        if (value !== undefined && !keep.has(name) && keep.has(name.toLowerCase())) taken = false;
        add(name, value);
      }
    }
  }
  return out;
}

/**
 * `JSON.stringify(headers)` of a picked header record, written directly when every name and value is printable
 * ASCII without `"` or `\` (header text as HTTP carries it): the same text byte for byte, for a fraction of the
 * cost of V8 11's serializer (about 2K instructions per call and 1.5K per property; docs/decisions.md, 2026-11-26).
 * Anything else goes through `JSON.stringify`.
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
    if (typeof value !== "string" || !plainJsonText(name) || !plainJsonText(value)) {
      return JSON.stringify(headers);
    }
    out += `${i === 0 ? "" : ","}"${name}":"${value}"`;
  }
  return `${out}}`;
}

/** Whether `JSON.stringify` would write `text` between quotes unchanged: printable ASCII but `"` and `\`. */
function plainJsonText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}
