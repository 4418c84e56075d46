import { parseDateTime } from "@plant-store/core";
import { type InboxEvent, openStore } from "@plant-store/store";
import { CliError } from "../../cli-error.js";
import { forwardEvent } from "../../forward.js";
import { httpUrl, notEmpty, paint, printJson, whole } from "../../output.js";

interface ReplayOptions {
  db: string;
  forwardTo: string;
  id?: string[];
  since?: string;
  failed?: boolean;
  token?: string;
  secret?: string;
  retries: string;
  json?: boolean;
}

/**
 * `plant-store replay`: forwards events that `plant-store listen --db` kept, again, oldest first: by webhook id
 * (`--id`, repeatable), received since a time (`--since`), or those never forwarded successfully (`--failed`). With
 * `--secret` each is signed anew (same webhook-id, fresh timestamp), since the original signature is never stored
 * and its timestamp would be stale. Exit 1 when any forward fails.
 *
 * @example
 * ```ts
 * await replay({ db: "./listen.db", forwardTo: "http://127.0.0.1:3000/plant/webhook", failed: true, retries: "0" });
 * ```
 */
export async function replay(options: ReplayOptions): Promise<void> {
  const target = httpUrl("--forward-to", options.forwardTo);
  const retries = whole("--retries", options.retries, 20, "", 0);
  const ids = options.id ?? [];
  const since = options.since === undefined ? undefined : parseDateTime(options.since);
  if (since === null) {
    throw new CliError("--since must be an RFC 3339 time, e.g. 2026-11-25T10:00:00Z.", 2);
  }
  if (ids.length === 0 && since === undefined && !options.failed) {
    throw new CliError("Which events? Give --id <webhook-id> (repeatable), --since <time>, or --failed.", 2);
  }
  const token = notEmpty("--token", options.token) ?? (process.env.PLANT_STORE_TOKEN || undefined);
  const secret = notEmpty("--secret", options.secret);
  const store = await openStore({ url: options.db, migrate: false }).catch((error: Error) => {
    throw new CliError(`Cannot open --db ${options.db}: ${error.message}`, 2);
  });
  const failures: string[] = [];
  try {
    const chosen = await select(store.inbox, ids, since, options.failed === true);
    if (chosen.length === 0) process.stderr.write("No stored event matches; nothing replayed.\n");
    const signal = new AbortController().signal;
    for (const event of chosen) {
      const result = await forwardEvent(target, event, {
        retries,
        signal,
        authorization: token ? `Bearer ${token}` : undefined,
        secret,
      });
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      if (ok) await store.inbox.markProcessed(event.webhookId);
      else failures.push(event.webhookId);
      if (options.json)
        printJson({ webhookId: event.webhookId, status: result.status, error: result.error ?? null });
      else {
        const shown =
          result.status === null
            ? paint("red", `failed: ${result.error}`)
            : paint(ok ? "green" : "red", String(result.status));
        process.stdout.write(`${event.webhookId} → ${shown}\n`);
      }
    }
  } finally {
    await store.close();
  }
  if (failures.length > 0) process.exitCode = 1;
}

/** The events asked for, oldest first; an unknown --id is a usage error naming it. */
async function select(
  inbox: Awaited<ReturnType<typeof openStore>>["inbox"],
  ids: string[],
  since: number | undefined,
  failed: boolean,
): Promise<InboxEvent[]> {
  const chosen: InboxEvent[] = [];
  for (const id of ids) {
    const event = await inbox.get(id);
    if (!event)
      throw new CliError(`No stored event has webhook-id ${id}; list them with --json output of listen.`, 2);
    chosen.push(event);
  }
  if (since !== undefined || failed) {
    let cursor: string | null = null;
    do {
      const page = await inbox.list({ limit: 1000, cursor, ...(failed && { processed: false }) });
      for (const event of page.items) {
        if (since !== undefined && event.receivedAt.getTime() < since) continue;
        if (!chosen.some((other) => other.webhookId === event.webhookId)) chosen.push(event);
      }
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  return chosen.sort((a, b) => a.seq - b.seq);
}
