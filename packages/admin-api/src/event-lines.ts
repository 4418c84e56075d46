import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey, parseJsonLossless, stringifyJson } from "@plant-store/core";

/** One event of an NDJSON file, as `POST /events/batch` takes it, with its line and its size in the body. */
export interface LineEvent {
  line: number;
  /** `payload` is an event's JSON value (an object when valid; the sender judges what a reader cannot). */
  event: { payload: Record<string, unknown>; type: string; idempotencyKey?: string };
  /** Bytes of the event's JSON in a batch body. */
  bytes: number;
}

/** A line that cannot be published, and why. */
export interface LineProblem {
  line: number;
  message: string;
}

/** Bytes of `{"events":[` and `]}` around a batch's events. */
export const BATCH_FRAME_BYTES = '{"events":[]}'.length;

/** The members a line may wrap its event in; a line without `payload` is the event itself. */
const ENVELOPE_KEYS = new Set(["payload", "type", "idempotencyKey"]);

/**
 * The events of an NDJSON text (the CLI's `publish --file`, the console's file upload), one per non-blank line:
 * either the event itself (of `defaultType`), or `{"payload": <event>, "type"?: "<event type>",
 * "idempotencyKey"?: "<key>"}` (the body's `BatchEvent`). Every line is read; `check` may refuse a payload (e.g.
 * against its type's schema) with a message. Problems name their line; a reader publishes nothing when there are any.
 *
 * @example
 * ```ts
 * readEventLines('{"id":1,"name":"Fern"}\n{"payload":{"id":2,"name":"Moss"},"idempotencyKey":"k2"}\n', {
 *   defaultType: "newPlant",
 *   maxBytes: 4 * 1024 * 1024,
 * }).events.length; // 2
 * ```
 */
export function readEventLines(
  text: string,
  options: {
    defaultType: string;
    maxBytes: number;
    check?: (event: LineEvent["event"]) => string | undefined;
  },
): { events: LineEvent[]; problems: LineProblem[] } {
  const events: LineEvent[] = [];
  const problems: LineProblem[] = [];
  text.split("\n").forEach((raw, i) => {
    const source = (i === 0 ? raw.replace(/^\uFEFF/, "") : raw).replace(/\r$/, "");
    if (source.trim() === "") return;
    try {
      events.push(lineEvent(source, i + 1, options));
    } catch (error) {
      problems.push({ line: i + 1, message: (error as Error).message });
    }
  });
  return { events, problems };
}

function lineEvent(source: string, line: number, options: Parameters<typeof readEventLines>[1]): LineEvent {
  let value: unknown;
  try {
    value = parseJsonLossless(source);
  } catch (error) {
    throw new Error(`not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("expected a JSON object: an event, or {payload, type?, idempotencyKey?}");
  }
  const given = envelope(value as Record<string, unknown>);
  const event = { ...given, type: given.type ?? options.defaultType };
  const refused = options.check?.(event);
  if (refused !== undefined) throw new Error(refused);
  const bytes = new TextEncoder().encode(stringifyJson(event)).length;
  if (bytes > options.maxBytes - BATCH_FRAME_BYTES) {
    throw new Error(
      `the event is ${bytes} bytes; a batch holds at most ${options.maxBytes - BATCH_FRAME_BYTES}`,
    );
  }
  return { line, event, bytes };
}

function envelope(value: Record<string, unknown>): Omit<LineEvent["event"], "type"> & { type?: string } {
  if (!("payload" in value)) return { payload: value };
  const unknown = Object.keys(value).filter((key) => !ENVELOPE_KEYS.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `a line with "payload" takes only payload, type and idempotencyKey, not ${unknown.join(", ")}`,
    );
  }
  const { payload, type, idempotencyKey } = value;
  if (type !== undefined && typeof type !== "string") throw new Error('"type" must be an event type (text)');
  if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
    throw new Error(`"idempotencyKey" must be ${IDEMPOTENCY_KEY_RULE}`);
  }
  return {
    payload: payload as Record<string, unknown>,
    ...(type !== undefined && { type }),
    ...(idempotencyKey !== undefined && { idempotencyKey: idempotencyKey as string }),
  };
}
