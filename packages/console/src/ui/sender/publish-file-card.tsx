import { batches, type LineEvent, MAX_BATCH_BODY_BYTES, readEventLines } from "@plant-store/admin-api";
import { MAX_BATCH_EVENTS } from "@plant-store/core";
import { useState } from "preact/hooks";
import { ApiError } from "../api.js";
import { ErrorNote, useAction } from "../ui.js";
import type { SenderApi } from "./sender-api.js";

/** How many refused lines are listed before "and N more". */
const SHOWN_PROBLEMS = 10;

/**
 * Publishes a file of events (NDJSON, one per line: the event, or `{payload, type?, idempotencyKey?}`) in batches,
 * each stored all or nothing; a line that cannot be read stops the file before anything is sent. Shows progress,
 * then what was published, or which lines were refused and what was stored before them.
 *
 * @example
 * ```tsx
 * <PublishFileCard api={api} defaultType="newPlant" />
 * ```
 */
export function PublishFileCard({ api, defaultType }: { api: SenderApi; defaultType: string }) {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const publish = async (chosen: File) => {
    setResult(null);
    const { events, problems } = readEventLines(await chosen.text(), {
      defaultType,
      maxBytes: MAX_BATCH_BODY_BYTES,
    });
    if (problems.length > 0)
      throw new Error(listed(problems, "of the file cannot be published; nothing was sent"));
    if (events.length === 0) throw new Error("The file holds no events (one JSON event per line).");
    let done = 0;
    let fresh = 0;
    setProgress({ done, total: events.length });
    for (const group of batches(events, MAX_BATCH_EVENTS, MAX_BATCH_BODY_BYTES)) {
      try {
        const { data } = await api.call("publishEvents", { body: { events: group.map((e) => e.event) } });
        fresh += data.filter((r) => !r.duplicate).length;
      } catch (error) {
        throw refusal(error, group, done);
      }
      done += group.length;
      setProgress({ done, total: events.length });
    }
    setResult(`Published ${done} events from ${chosen.name}: ${fresh} new, ${done - fresh} duplicates.`);
  };
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        if (file) void action.run(() => publish(file));
      }}
    >
      <h2>Publish a file of events</h2>
      <label for="publish-file">
        NDJSON file: one event per line, or {'{"payload", "type", "idempotencyKey"}'}
      </label>
      <input
        id="publish-file"
        type="file"
        accept=".ndjson,.jsonl,application/x-ndjson,text/plain"
        onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
      />
      <button type="submit" disabled={action.busy || !file}>
        Send file
      </button>
      {progress && (
        <progress aria-label="Events published" value={progress.done} max={progress.total}>
          {progress.done}/{progress.total}
        </progress>
      )}
      <ErrorNote error={action.error} />
      <p role="status" class="ok">
        {result ?? ""}
      </p>
    </form>
  );
}

function listed(problems: readonly { line: number; message: string }[], what: string): string {
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `line ${p.line}: ${p.message}`);
  const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : "";
  return `${problems.length} line${problems.length === 1 ? "" : "s"} ${what}: ${shown.join("; ")}${more}.`;
}

/** A refused batch in the file's terms: its lines, and how many events were stored before it. */
function refusal(error: unknown, group: readonly LineEvent[], done: number): Error {
  const before = done === 0 ? "Nothing was published." : `The first ${done} events were published.`;
  if (!(error instanceof ApiError) || error.problems.length === 0) {
    return new Error(
      `${(error as Error).message} (lines ${group[0]?.line}–${group.at(-1)?.line}). ${before}`,
    );
  }
  const problems = error.problems.map((p) => ({
    line: (p.index === undefined ? group[0] : group[p.index])?.line ?? 0,
    message: `${p.pointer.replace(/^\/events\/\d+/, "") || "/"}: ${p.message}`,
  }));
  return new Error(`${listed(problems, "refused by the sender; none of their batch was stored")} ${before}`);
}
