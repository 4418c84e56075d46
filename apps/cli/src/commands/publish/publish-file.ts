import { batches, type LineEvent, MAX_BATCH_BODY_BYTES, readEventLines } from "@plant-store/admin-api";
import { MAX_BATCH_EVENTS, parseEvent, stringifyJson } from "@plant-store/core";
import type { Catalog } from "@plant-store/spec";
import type { AdminSession } from "../../admin/admin-session.js";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { printJson } from "../../output.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";
import { progressBar } from "./progress.js";

/** What each line of the file became. */
interface LineResult {
  line: number;
  messageId: string;
  duplicate: boolean;
  deliveries: number;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * `plant-store publish --file events.ndjson`: every line checked first (`readEventLines`), then sent in batches of
 * at most `MAX_BATCH_EVENTS` events and `MAX_BATCH_BODY_BYTES` bytes, each stored all or nothing by the sender. A
 * progress bar on a terminal's stderr; a summary (or `--json`, one answer per line) at the end. A refused batch
 * names its lines and says which batches were stored before it (exit 1).
 *
 * @example
 * ```ts
 * await publishFile({ file: "events.ndjson", senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" }, admin);
 * ```
 */
export async function publishFile(
  options: EventOptions & PayloadOptions & { json?: boolean },
  admin: AdminSession,
): Promise<void> {
  const { catalog, entry } = await commandEvent(options);
  let text: string;
  try {
    text = strictUtf8.decode(await payloadBytes(options, true));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${options.file} is not UTF-8 text; write the events as UTF-8 JSON, one per line.`);
  }
  const events = fileEvents(text, entry.type, catalog);
  const bar = progressBar(events.length, process.stderr);
  const results: LineResult[] = [];
  try {
    for (const group of batches(events, MAX_BATCH_EVENTS, MAX_BATCH_BODY_BYTES)) {
      const answer = await admin.send("publishEvents", { body: { events: group.map((e) => e.event) } });
      if (!answer.ok) throw refusedBatch(answer, group, results);
      answer.value.data.forEach((r, i) => {
        results.push({ line: (group[i] as LineEvent).line, ...r });
      });
      bar.update(results.length);
    }
  } finally {
    bar.end();
  }
  if (options.json) return printJson({ data: results });
  const duplicates = results.filter((r) => r.duplicate).length;
  const deliveries = results.reduce((n, r) => n + (r.duplicate ? 0 : r.deliveries), 0);
  process.stdout.write(
    `Published ${results.length} events: ${results.length - duplicates} new, ${duplicates} duplicates; ${deliveries} deliveries queued.\n`,
  );
}

/** How many problems of a file are listed before "and N more". */
const SHOWN_PROBLEMS = 10;

/**
 * The file's events, every line checked first (JSON, the envelope, the key, the payload against its type's schema
 * when this CLI's catalog holds the type; another type is left to the sender, which may run another document):
 * any problem is an error naming every line, before anything is sent.
 */
function fileEvents(text: string, defaultType: string, catalog: Catalog): LineEvent[] {
  const check = (event: LineEvent["event"]) => {
    const entry = catalog.find((candidate) => candidate.type === event.type);
    if (!entry) return undefined;
    const parsed = parseEvent(entry, stringifyJson(event.payload), { mode: "lossless" });
    if (parsed.ok) return undefined;
    const issue = parsed.issues[0];
    return issue ? `${event.type} ${issue.pointer || "/"}: ${issue.message}` : parsed.message;
  };
  const { events, problems } = readEventLines(text, { defaultType, maxBytes: MAX_BATCH_BODY_BYTES, check });
  if (problems.length > 0) {
    const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `line ${p.line}: ${p.message}`);
    const more = problems.length > SHOWN_PROBLEMS ? `\n… and ${problems.length - SHOWN_PROBLEMS} more` : "";
    throw new CliError(
      `${problems.length} line${problems.length === 1 ? "" : "s"} of the file cannot be published; nothing was sent:\n${shown.join("\n")}${more}`,
    );
  }
  if (events.length === 0) throw new CliError("The file holds no events (one JSON event per line).");
  return events;
}

/** The sender refused a batch: its lines and why, and what was stored before it. */
function refusedBatch(
  answer: { status: number; message: string; body: unknown },
  group: readonly LineEvent[],
  stored: readonly LineResult[],
): CliError {
  const lines = `lines ${group[0]?.line}–${group.at(-1)?.line}`;
  const before =
    stored.length === 0
      ? "Nothing was published"
      : `${stored.length} events (lines ${stored[0]?.line}–${stored.at(-1)?.line}) were published; nothing after them was`;
  const problems = (answer.body as { problems?: { index?: number; pointer: string; message: string }[] })
    .problems;
  const details = problems?.length
    ? problems.map((p) => {
        const line = p.index === undefined ? lines : `line ${group[p.index]?.line}`;
        const pointer = p.pointer.replace(/^\/events\/\d+/, "");
        return `${line}: ${pointer || "/"}: ${p.message}`;
      })
    : [answer.message];
  return new CliError(
    `The sender refused the batch of ${lines} (${answer.status}), so none of it was stored:\n${details.join("\n")}\n${before}.`,
  );
}
