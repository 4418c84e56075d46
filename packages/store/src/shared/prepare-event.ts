import { isUtf8 } from "node:buffer";
import { parseNewPlant, serializeNewPlant } from "@plant-store/core";
import { InvalidEventError } from "../errors.js";

/**
 * The exact bytes to store and send for an event given to `publish`: JSON text (string or bytes)
 * is kept byte for byte, but for a leading byte order mark, which is dropped (RFC 8259 §8.1: JSON
 * sent over a network carries none); bytes that are not UTF-8 are refused. An object is serialized
 * by core (bigint-safe). Either way core's `parseNewPlant` must accept the bytes.
 *
 * @example
 * ```ts
 * prepareEvent('{"id":1,"name":"Fern"}'); // the same bytes
 * prepareEvent({ id: 1 }); // throws InvalidEventError (kind "schema", pointer "/name")
 * ```
 */
export function prepareEvent(event: unknown, mode?: "safe" | "lossless"): Uint8Array {
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
    if (mode === undefined && typeof (event as { id?: unknown }).id === "bigint") resolvedMode = "lossless";
    try {
      raw = serializeNewPlant(event as Parameters<typeof serializeNewPlant>[0]);
    } catch (cause) {
      // Core's message carries the sender-side advice (e.g. "pass it as a bigint"); the pointers come
      // from parsing the same object, when plain JSON can represent it.
      let issues: ReadonlyArray<{ pointer: string; message: string }> = [
        { pointer: "", message: String(cause) },
      ];
      try {
        const parsed = parseNewPlant(JSON.stringify(event), { mode: "lossless" });
        if (!parsed.ok) issues = parsed.issues;
      } catch {
        // bigint or cyclic values: keep the single root issue
      }
      throw new InvalidEventError("schema", issues, (cause as Error).message, { cause });
    }
  } else {
    throw new InvalidEventError(
      "json",
      [{ pointer: "", message: "Expected a New Plant object or its JSON text." }],
      "The event must be a New Plant object or its JSON text.",
    );
  }
  const result =
    resolvedMode === "lossless"
      ? parseNewPlant(raw, { mode: "lossless" })
      : parseNewPlant(raw, { mode: "safe" });
  if (!result.ok) throw new InvalidEventError(result.kind, result.issues, result.message);
  return typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw);
}
