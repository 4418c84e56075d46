import {
  IDEMPOTENCY_KEY_RULE,
  isIdempotencyKey,
  parseEvent,
  parseJsonLossless,
  stringifyJson,
} from "@plant-store/core";
import type { Catalog } from "@plant-store/spec";
import { CliError } from "../../cli-error.js";

/** One event of an NDJSON file, as `POST /events/batch` takes it, with its line and its size in the body. */
export interface LineEvent {
  line: number;
  /** `payload` is an event's JSON value (an object when valid; the sender judges what it cannot). */
  event: { payload: Record<string, unknown>; type?: string; idempotencyKey?: string };
  /** Bytes of the event's JSON in a batch body. */
  bytes: number;
}

/** How many problems of a file are listed before "and N more". */
const SHOWN_PROBLEMS = 10;

/** The members a line may wrap its event in; a line without `payload` is the event itself. */
const ENVELOPE_KEYS = new Set(["payload", "type", "idempotencyKey"]);

/**
 * The events of an NDJSON file, one per non-blank line: either the event itself (of `defaultType`), or
 * `{"payload": <event>, "type"?: "<event type>", "idempotencyKey"?: "<key>"}`. Every line is read and checked
 * (JSON, the envelope, the key, the payload against its type's schema when the catalog holds that type) before
 * anything is sent: a problem names its line, all of them are reported, and nothing is published (exit 1).
 *
 * @example
 * ```ts
 * readEventLines('{"id":1,"name":"Fern"}\n{"payload":{"id":2,"name":"Moss"},"idempotencyKey":"k2"}\n', "newPlant", catalog);
 * ```
 */
export function readEventLines(
  text: string,
  defaultType: string,
  catalog: Catalog,
  maxBytes: number,
): LineEvent[] {
  const events: LineEvent[] = [];
  const problems: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const source = (i === 0 ? raw.replace(/^\uFEFF/, "") : raw).replace(/\r$/, "");
    if (source.trim() === "") return;
    try {
      events.push(lineEvent(source, i + 1, defaultType, catalog, maxBytes));
    } catch (error) {
      problems.push(`line ${i + 1}: ${(error as Error).message}`);
    }
  });
  if (problems.length > 0) {
    const more = problems.length > SHOWN_PROBLEMS ? `\n… and ${problems.length - SHOWN_PROBLEMS} more` : "";
    throw new CliError(
      `${problems.length} line${problems.length === 1 ? "" : "s"} of the file cannot be published; nothing was sent:\n${problems.slice(0, SHOWN_PROBLEMS).join("\n")}${more}`,
    );
  }
  if (events.length === 0) throw new CliError("The file holds no events (one JSON event per line).");
  return events;
}

function lineEvent(
  source: string,
  line: number,
  defaultType: string,
  catalog: Catalog,
  maxBytes: number,
): LineEvent {
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
  const type = given.type ?? defaultType;
  const event = { ...given, type };
  const entry = catalog.find((candidate) => candidate.type === type);
  const json = stringifyJson(event);
  // A type this CLI's catalog does not hold is left to the sender, which may run another document.
  if (entry) {
    const parsed = parseEvent(entry, stringifyJson(event.payload), { mode: "lossless" });
    if (!parsed.ok) {
      const issue = parsed.issues[0];
      throw new Error(issue ? `${type} ${issue.pointer || "/"}: ${issue.message}` : parsed.message);
    }
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > maxBytes) throw new Error(`the event is ${bytes} bytes; a batch holds at most ${maxBytes}`);
  return { line, event, bytes };
}

function envelope(value: Record<string, unknown>): LineEvent["event"] {
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
