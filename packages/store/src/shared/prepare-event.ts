import { isUtf8 } from "node:buffer";
import { parseEvent, serializeEvent } from "@plant-store/core";
import {
  type Catalog,
  DEFAULT_EVENT_TYPE,
  catalog as specCatalog,
  unknownEventMessage,
  type WebhookEntry,
} from "@plant-store/spec";
import { InvalidEventError, StoreConflictError, StoreInputError } from "../errors.js";
import { checkEventType } from "./validate.js";

/** What `publish` stores for an event: its catalog type and the exact bytes to send. */
export interface PreparedEvent {
  eventType: string;
  body: Uint8Array;
}

/**
 * The catalog entry of an event type (default New Plant): the webhook whose schema validates the event.
 * Throws `StoreInputError` (`unknown_event_type`) listing the catalog's types when it holds no such type.
 *
 * @example
 * ```ts
 * eventEntry(undefined).type; // "newPlant"
 * eventEntry("plantEaten"); // throws: Unknown event "plantEaten". Known events: newPlant (New Plant, POST /plant/webhook).
 * ```
 */
export function eventEntry(eventType: unknown, catalog: Catalog = specCatalog): WebhookEntry {
  const type = checkEventType(eventType, DEFAULT_EVENT_TYPE);
  const entry = catalog.find((candidate) => candidate.type === type);
  if (!entry) throw new StoreInputError("unknown_event_type", unknownEventMessage(catalog, type));
  return entry;
}

/**
 * The exact bytes to store and send for an event given to `publish`, validated against its webhook's schema in
 * the catalog: JSON text (string or bytes) is kept byte for byte, but for a leading byte order mark, which is
 * dropped (RFC 8259 §8.1: JSON sent over a network carries none); bytes that are not UTF-8 are refused. An object
 * is serialized by core (bigint-safe). Either way core's `parseEvent` must accept the bytes.
 *
 * @example
 * ```ts
 * prepareEvent('{"id":1,"name":"Fern"}'); // { eventType: "newPlant", body: the same bytes }
 * prepareEvent({ id: 1 }); // throws InvalidEventError (kind "schema", pointer "/name")
 * ```
 */
export function prepareEvent(
  event: unknown,
  options: {
    mode?: "safe" | "lossless" | undefined;
    eventType?: unknown;
    catalog?: Catalog | undefined;
  } = {},
): PreparedEvent {
  const entry = eventEntry(options.eventType, options.catalog);
  const { mode } = options;
  let raw: string | Uint8Array;
  let resolvedMode = mode ?? "safe";
  if (typeof event === "string") {
    raw = event.charCodeAt(0) === 0xfeff ? event.slice(1) : event;
  } else if (event instanceof Uint8Array) {
    raw = event[0] === 0xef && event[1] === 0xbb && event[2] === 0xbf ? event.subarray(3) : event;
    // Bytes are relayed exactly or refused: never with U+FFFD in place of what was sent.
    if (!isUtf8(raw)) {
      throw new InvalidEventError(
        "json",
        [{ pointer: "", message: "The bytes are not valid UTF-8." }],
        "The event is not valid UTF-8 (RFC 8259 §8.1); send JSON text encoded as UTF-8.",
      );
    }
  } else if (event !== null && typeof event === "object" && !Array.isArray(event)) {
    // A bigint can only mean an int64 beyond 2^53: the caller wants it sent exactly.
    if (mode === undefined && holdsBigint(event)) resolvedMode = "lossless";
    try {
      raw = serializeEvent(entry, event);
    } catch (cause) {
      // Core's message carries the sender-side advice (e.g. "pass it as a bigint"); the pointers come
      // from parsing the same object, when plain JSON can represent it.
      let issues: ReadonlyArray<{ pointer: string; message: string }> = [
        { pointer: "", message: String(cause) },
      ];
      try {
        const parsed = parseEvent(entry, JSON.stringify(event), { mode: "lossless" });
        if (!parsed.ok) issues = parsed.issues;
      } catch {
        // bigint or cyclic values: keep the single root issue
      }
      throw new InvalidEventError("schema", issues, (cause as Error).message, { cause });
    }
  } else {
    throw new InvalidEventError(
      "json",
      [{ pointer: "", message: `Expected a ${entry.name} object or its JSON text.` }],
      `The event must be a ${entry.name} object or its JSON text.`,
    );
  }
  const result = parseEvent(entry, raw, { mode: resolvedMode });
  if (!result.ok) throw new InvalidEventError(result.kind, result.issues, result.message);
  return {
    eventType: entry.type,
    body: typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw),
  };
}

/** Whether a value holds a `bigint` at any depth (an explicit stack: no recursion limit; cycles are skipped). */
function holdsBigint(root: object): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "bigint") return true;
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    for (const value of Object.values(node)) stack.push(value);
  }
  return false;
}

/**
 * A publish whose idempotency key was used before answers with the first message only when it is the same event
 * (same type, same bytes); anything else is a conflict, so a reused key never silently drops a different event.
 *
 * @example
 * ```ts
 * checkReplay({ event_type: "newPlant", body }, { eventType: "newPlant", body }); // passes
 * ```
 */
export function checkReplay(
  existing: { event_type: string; body: Uint8Array },
  prepared: PreparedEvent,
): void {
  if (!sameEvent({ eventType: existing.event_type, body: existing.body }, prepared)) {
    throw new StoreConflictError(
      "idempotency_conflict",
      "This idempotency key was already used for a different event; use a new key.",
    );
  }
}

/**
 * Whether two prepared events are the same event (same type, same bytes): what a reused idempotency key must name.
 *
 * @example
 * ```ts
 * sameEvent(prepareEvent('{"id":1,"name":"Fern"}'), prepareEvent('{"id":1,"name":"Fern"}')); // true
 * ```
 */
export function sameEvent(a: PreparedEvent, b: PreparedEvent): boolean {
  return a.eventType === b.eventType && Buffer.from(a.body).equals(Buffer.from(b.body));
}
